/**
 * The routing-engine framework: the {@link org.fabriclab.routing.engine.RoutingEngine} contract,
 * the registry ({@link org.fabriclab.routing.engine.RoutingEngines}), chains with min-hop as the
 * fallback, the forwarding tables engines produce, and the shared pieces engines build on
 * ({@link org.fabriclab.routing.engine.SwitchGraph}, {@link org.fabriclab.routing.engine.BalancedRouter}).
 * One engine per sub-package. Nothing here does I/O, reads a clock or keeps static mutable state.
 */
package org.fabriclab.routing.engine;
