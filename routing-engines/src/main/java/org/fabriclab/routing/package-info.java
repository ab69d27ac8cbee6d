/**
 * The routing library: fabric model, topologies and file formats, routing engines and route
 * analysis. JDK only, by the project's one-way rule: no Netty, no gRPC, no threads, no I/O beyond
 * parsing a Reader and writing a Writer. The switch agents, the emulator and the manager build on it.
 */
package org.fabriclab.routing;
