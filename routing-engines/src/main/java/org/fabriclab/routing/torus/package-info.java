/**
 * The Angara interconnect's torus routing, after Mukosey, Semenov and Tretiakov, "Optimized Graph
 * Based Routing Algorithm for the Angara Interconnect": source routes on tori of up to four
 * dimensions. Here: the torus model of a fabric, the routing graph with the deadlock-free turns,
 * shortest and minimal routes, source routes packed into a header's 62 bits, their analysis
 * (sigma(4), turn cycles), the three torus engines ({@code torus-bfs}, {@code torus-sssp},
 * {@code torus-genetic}) and the Figure 5 study. A library of its own below the engine framework:
 * nothing here may depend on {@code org.fabriclab.routing.engine}; the adapter into the framework
 * is {@code engine.torus}.
 */
package org.fabriclab.routing.torus;
