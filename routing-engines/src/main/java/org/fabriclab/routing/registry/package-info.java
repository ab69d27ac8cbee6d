/**
 * The routing engines by key ({@code RoutingEngines}) and the configured chain with minhop as the
 * fallback ({@code EngineChain}), as OpenSM's {@code -R updn,minhop}. Above every engine package, so
 * that the framework ({@code routing.engine}) and the engines do not depend on each other both
 * ways: a new engine is added to the list here. Nothing below may depend on this package.
 */
package org.fabriclab.routing.registry;
