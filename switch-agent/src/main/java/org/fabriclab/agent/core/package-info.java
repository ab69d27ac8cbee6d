/**
 * The switch core: tables, and (with the data plane) buffers, credits, the arbiter and the routing
 * decision; and the host's: its NIC ({@code HostCore}) and what it decides per packet
 * ({@code HostPolicy}: arrivals, destinations, sequence numbers, SL and source route; {@code FlowSink}
 * on the receive side; {@code ClosedLoop}: a closed-loop job's microbenchmark, who sends on receipt;
 * {@code CongestionControl}, {@code Dcqcn} and {@code Swift}: the NIC's per-flow
 * congestion control, and {@code EcnMarking}, the switches' marking for it). No Netty, no gRPC, no
 * threads of its own: the live agent and the simulator drive it.
 */
package org.fabriclab.agent.core;
