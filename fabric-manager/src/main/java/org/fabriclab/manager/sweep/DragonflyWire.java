package org.fabriclab.manager.sweep;

import com.google.protobuf.ByteString;
import org.fabriclab.proto.v1.DragonflyRouting;
import org.fabriclab.routing.dragonfly.DragonflyParams;
import org.fabriclab.routing.dragonfly.DragonflySwitch;

/**
 * A router's {@link DragonflySwitch} as the daemon writes it into a table write ({@code
 * DragonflyRouting}): the inverse of the switch agent's decoder, field for field (the daemon must
 * not depend on the agent, so each side maps from the same model in routing-engines).
 */
final class DragonflyWire {
    private DragonflyWire() {
    }

    /** {@code d} as the contract carries it; algorithm NONE (Dragonfly routing off) for null. */
    static DragonflyRouting encode(DragonflySwitch d) {
        if (d == null) {
            return DragonflyRouting.getDefaultInstance();
        }
        DragonflyParams p = d.params();
        DragonflyRouting.Builder b = DragonflyRouting.newBuilder().setAlgorithmValue(d.algorithm().code()).setAlpha(p.alpha())
                .setBeta(p.beta()).setEpsilon(p.epsilon()).setQThld1(p.qThld1()).setQThld2(p.qThld2()).setUgalThreshold(p.ugalThreshold())
                .setUgalBias(p.ugalBias()).setSeed(d.seed()).setGroup(d.group()).setIndex(d.index()).setGroups(d.groups())
                .setRouters(d.routers()).setHostsPerRouter(d.hostsPerRouter()).setPortKinds(ByteString.copyFrom(d.portKinds()));
        for (int x : d.portPeers()) {
            b.addPortPeers(x);
        }
        for (int x : d.gateways()) {
            b.addGateways(x);
        }
        for (int x : d.lids().entries()) {
            b.addLidMap(x);
        }
        if (d.qSeed() != null) {
            for (float x : d.qSeed()) {
                b.addQSeed(x);
            }
        }
        return b.build();
    }
}
