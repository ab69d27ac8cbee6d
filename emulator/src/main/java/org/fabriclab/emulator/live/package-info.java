/**
 * A fabric run live in one JVM: {@code EmulatedFabric} starts one switch agent per switch (the
 * {@code agent.link} drivers and an in-process management endpoint), joins their ports with Netty
 * data links and attaches the hosts. The embedded default of the daemon and the emulator's live
 * runs both start fabrics here. Builds and wires only; the per-packet work is the agents'.
 */
package org.fabriclab.emulator.live;
