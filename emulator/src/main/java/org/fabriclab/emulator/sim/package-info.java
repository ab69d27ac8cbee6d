/**
 * The discrete-event simulator: the switch and host cores of {@code org.fabriclab.agent.core}
 * driven by an event queue in virtual time (the other clock of "one core, two clocks"), its
 * latency histogram and the per-port shares it measures. What lives here is only the clock and the
 * measurement: a routing, arbitration or host decision belongs in the cores, so that the live
 * plane runs the same code. Nothing here may use Netty, gRPC, threads or the wall clock (beyond
 * reporting the run's own speed), nor the live data plane ({@code agent.link}).
 */
package org.fabriclab.emulator.sim;
