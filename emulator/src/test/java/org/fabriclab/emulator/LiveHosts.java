package org.fabriclab.emulator;

import org.fabriclab.agent.core.TableInstall;
import org.fabriclab.agent.link.LiveHost;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.testkit.Waits;

/** The live hosts of an emulated fabric brought up without a manager, for the closed-loop tests. */
final class LiveHosts {
    private LiveHosts() {
    }

    /** Installs {@code tables} on every switch and activates every host with its LID (a manager's work, done directly); the hosts by endpoint. */
    static LiveHost[] activate(EmulatedFabric fabric, Fabric f, ForwardingTables tables, int vls) throws Exception {
        for (int s = 0; s < f.switchCount(); s++) {
            fabric.node(f.name(f.switchNode(s))).management().tables().apply(TableInstall.batch(tables, s, vls, false));
        }
        LiveHost[] host = new LiveHost[f.endpointCount()];
        for (int e = 0; e < host.length; e++) {
            host[e] = (LiveHost) fabric.node(f.name(f.endpointNode(e)));
            host[e].management().setPort(1, tables.lids().endpointLid(e), PortState.PORT_STATE_ARMED);
            host[e].management().setPort(1, 0, PortState.PORT_STATE_ACTIVE);
        }
        return host;
    }

    /** Waits, the traffic stopped, until nothing waits at any host and every packet sent has arrived (each host's stats read on its loop after its stop). */
    static void waitUntilQuiet(LiveHost[] host) {
        Waits.until("every message sent has arrived, none waiting", () -> {
            long sent = 0;
            long received = 0;
            boolean idle = true;
            for (LiveHost h : host) {
                LiveHost.Stats s = h.stats().join();
                sent += s.sent();
                received += s.received();
                idle &= s.idle();
            }
            return idle && sent == received;
        });
    }

    /** Host {@code e}'s node counter {@code counter}. */
    static long node(LiveHost[] host, int e, int counter) {
        return host[e].management().counters().getNode(counter);
    }
}
