package org.fabriclab.agent.mgmt;

import com.google.protobuf.ByteString;
import org.fabriclab.agent.core.TableWriteException;
import org.fabriclab.proto.v1.DragonflyRouting;
import org.fabriclab.routing.dragonfly.DragonflyAlgorithm;
import org.fabriclab.routing.dragonfly.DragonflyLids;
import org.fabriclab.routing.dragonfly.DragonflyParams;
import org.fabriclab.routing.dragonfly.DragonflySwitch;

/**
 * A router's {@link DragonflySwitch} as the management contract carries it ({@code
 * DragonflyRouting}), both ways on the switch's side: decoded from a table write (every value
 * checked: a malformed routing is a refused write, the tables unchanged) and encoded for {@code
 * GetDragonflyRouting}. The daemon's encoder ({@code TableWriteEncoder}) writes the same fields.
 */
public final class DragonflyWire {
    /** LIDs a LID map may describe (the LFT's capacity). */
    private static final int MAX_LIDS = 0xC000;

    private DragonflyWire() {
    }

    /**
     * The routing a write carries, or null when it turns Dragonfly routing off.
     *
     * @throws TableWriteException naming the field that is out of range or inconsistent
     */
    public static DragonflySwitch decode(DragonflyRouting r) throws TableWriteException {
        if (r.getAlgorithmValue() == 0) {
            return null;
        }
        DragonflyAlgorithm a = DragonflyAlgorithm.ofCode(r.getAlgorithmValue());
        if (a == null) {
            throw invalid("algorithm " + r.getAlgorithmValue() + " is none of 0..7");
        }
        if (r.getLidMapCount() > MAX_LIDS || r.getPortKinds().size() > 256 || r.getGatewaysCount() > 4096
                || r.getPortPeersCount() > 256) {
            throw invalid("a LID map of " + r.getLidMapCount() + " entries (at most " + MAX_LIDS + "), " + r.getPortKinds().size()
                    + " port kinds or " + r.getGatewaysCount() + " gateways is beyond any switch");
        }
        if (Integer.toUnsignedLong(r.getGroups()) > 4096 || Integer.toUnsignedLong(r.getRouters()) > 255
                || Integer.toUnsignedLong(r.getHostsPerRouter()) > 255 || Integer.toUnsignedLong(r.getUgalBias()) > 1_000_000) {
            throw invalid("groups " + Integer.toUnsignedString(r.getGroups()) + ", routers " + Integer.toUnsignedString(r.getRouters())
                    + ", hosts a router " + Integer.toUnsignedString(r.getHostsPerRouter()) + " or ugal_bias "
                    + Integer.toUnsignedString(r.getUgalBias()) + " out of range");
        }
        try {
            DragonflyParams params = new DragonflyParams(r.getAlpha(), r.getBeta(), r.getEpsilon(), r.getQThld1(), r.getQThld2(),
                    r.getUgalThreshold(), r.getUgalBias());
            int[] lids = TableWriteDecoder.ints(r.getLidMapList());
            float[] seed = null;
            if (r.getQSeedCount() > 0) {
                seed = new float[r.getQSeedCount()];
                for (int i = 0; i < seed.length; i++) {
                    seed[i] = r.getQSeed(i);
                }
            }
            return new DragonflySwitch(a, params, r.getSeed(), r.getGroup(), r.getIndex(), r.getGroups(), r.getRouters(),
                    r.getHostsPerRouter(), r.getPortKinds().toByteArray(), TableWriteDecoder.ints(r.getPortPeersList()), TableWriteDecoder.ints(r.getGatewaysList()),
                    DragonflyLids.of(lids), seed);
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
    }

    /** {@code d} as the contract carries it (algorithm NONE for null); without the LID map and seed if {@code brief}. */
    public static DragonflyRouting encode(DragonflySwitch d, boolean brief) {
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
        if (!brief) {
            for (int x : d.lids().entries()) {
                b.addLidMap(x);
            }
            if (d.qSeed() != null) {
                for (float x : d.qSeed()) {
                    b.addQSeed(x);
                }
            }
        }
        return b.build();
    }


    private static TableWriteException invalid(String what) {
        return new TableWriteException(TableWriteException.Reason.INVALID, "dragonfly: " + what);
    }
}
