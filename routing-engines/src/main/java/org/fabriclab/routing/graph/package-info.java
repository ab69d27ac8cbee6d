/**
 * Graph algorithms over int-indexed graphs, apart from the models they run on: the channel
 * dependency graph and its iterative cycle check (deadlock freedom per virtual lane), used both by
 * engines that prove their own tables ({@code engine.ar}) and by route analysis. Depends on the JDK
 * only, so that any package may use it; nothing here may depend on an engine, the fabric model or
 * analysis.
 */
package org.fabriclab.routing.graph;
