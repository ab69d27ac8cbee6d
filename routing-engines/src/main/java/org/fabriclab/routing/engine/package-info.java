/**
 * The routing-engine framework: the {@link org.fabriclab.routing.engine.RoutingEngine} contract,
 * the forwarding tables engines produce, and the shared pieces engines build on
 * ({@link org.fabriclab.routing.engine.SwitchGraph}, {@link org.fabriclab.routing.engine.BalancedRouter}).
 * One engine per sub-package; the registry and the chain that name them all live above, in
 * {@code org.fabriclab.routing.registry}, so that no engine package and this one depend on each
 * other both ways. Nothing here does I/O, reads a clock or keeps static mutable state, and nothing
 * here may import an engine's sub-package.
 */
package org.fabriclab.routing.engine;
