/**
 * Dragonfly routing (issue 16): a fabric read as a Dragonfly ({@link DragonflyFabric}), the
 * algorithms of the Q-adaptive paper ({@link DragonflyAlgorithm}: MIN, VALg, VALn, UGALg, UGALn,
 * PAR, Q-adaptive) with their parameters ({@link DragonflyParams}), one router's routing state
 * ({@link DragonflySwitch}, {@link DragonflyLids}, the Q-table seed from {@link QSeeds}), the
 * rules both the switch core and the proof follow ({@link DragonflyRules}, over the packet state
 * of {@link DragonflyHeader}), and the proof itself ({@link DragonflyPaths}: hop bounds and
 * deadlock freedom on the (channel, VC) dependency graph of every allowed path), and the routing
 * modes a host asks for per packet ({@link RoutingMode}, issue 19), which choose only among the
 * outcomes the rules allow. JDK only;
 * nothing here depends on {@code engine}: the engines that make these tables live in
 * {@code engine.dragonfly}.
 */
package org.fabriclab.routing.dragonfly;
