/**
 * The manager's gRPC channels to the nodes' management endpoints, one per endpoint, shared by
 * discovery, the sweeps and the performance manager (in-process names for the embedded fabric, TCP
 * otherwise), and {@code FanOut}, which spreads one call over many nodes (bounded in flight, a deadline
 * on each, retries for reads only, results in the nodes' order). Below both {@code discovery} and {@code sweep}: it may depend on the generated
 * contract only, never on the manager's state.
 */
package org.fabriclab.manager.channel;
