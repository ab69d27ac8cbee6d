/**
 * The {@code minhop} engine: shortest paths, balanced by routes per channel. Uses only the
 * shared {@link org.fabriclab.routing.engine.BalancedRouter}; holds no state between runs.
 */
package org.fabriclab.routing.engine.minhop;
