/**
 * Topology specs and the generators behind them ({@link org.fabriclab.routing.topology.Topologies}).
 * Generators are deterministic (random ones from a seed in the spec) and name nodes as the OpenSM
 * peer's generator does, so both sides can route the same net file.
 */
package org.fabriclab.routing.topology;
