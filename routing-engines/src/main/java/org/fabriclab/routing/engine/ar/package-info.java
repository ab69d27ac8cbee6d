/**
 * The Adaptive Routing Manager's group modes as engines ({@code ar-lag}, {@code ar-tree},
 * {@code ar-dfp}, {@code ar-dfp-minimal}): minhop's static LFT plus AR groups and the AR LFT, and
 * for Dragonfly+ the detours whose deadlock freedom is proven on their channel dependency graph
 * ({@code routing.graph}). Engines only: the registry that names them is {@code routing.registry},
 * and the switch-side group selection is the switch core's.
 */
package org.fabriclab.routing.engine.ar;
