/**
 * The switch core: tables, and (with the data plane) buffers, credits, the arbiter and the routing
 * decision. No Netty, no gRPC, no threads of its own: the live agent and the simulator drive it.
 */
package org.fabriclab.agent.core;
