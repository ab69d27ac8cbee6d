package org.fabriclab.manager;

import io.grpc.StatusRuntimeException;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.fabriclab.manager.channel.NodeChannels;
import org.fabriclab.manager.discovery.DiscoveredNode;
import org.fabriclab.manager.discovery.Discovery;
import org.fabriclab.proto.v1.GetSmInfoRequest;
import org.fabriclab.proto.v1.SetSmInfoRequest;
import org.fabriclab.proto.v1.SmInfo;
import org.fabriclab.proto.v1.SmState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which manager configures the fabric, as InfiniBand's SM election decides it (IBA 14.4): every
 * node's SMInfo names the manager that claimed it, its priority and its activity count. The
 * higher priority wins, and between equal priorities the lower GUID. A manager that finds the
 * fabric claimed by a live master that outranks it stands by and writes nothing; a master that
 * outranks the current one takes over at once.
 *
 * <p>Liveness without a manager-to-manager link: the master raises its activity count on the
 * <em>anchor</em> node (the lowest GUID discovered, the same for every manager of one fabric) at
 * every light sweep, and its heavy sweeps claim every node. A standby reads every node's SMInfo at
 * its own light sweeps and takes over when, for {@link #MISSED_POLLS} of them in a row, the count
 * has stood still or the claimed master has not claimed every node (a master that does not sweep:
 * stopped, or an impostor that wrote one node's SMInfo), or at once when the anchor no longer
 * names a master that outranks it. With light sweeps every {@code --sweep-interval}, a standby
 * takes over within {@code (MISSED_POLLS + 1)} intervals. Used on the sweep thread only.
 */
final class Mastership {
    private static final Logger LOG = LoggerFactory.getLogger(Mastership.class);
    /** Light sweeps without a change of the master's activity count before a standby takes over. */
    static final int MISSED_POLLS = 3;

    /** This manager's identity in SMInfo, and the M_Key it sets and writes with (0: none). */
    record Config(long guid, int priority, long mKey) {
        Config {
            if (priority < 0 || priority > 15) {
                throw new IllegalArgumentException("SM priority " + priority + " is out of range 0..15");
            }
        }
    }

    /** A manager claiming the fabric, as a node's SMInfo names it. */
    record Claim(long guid, int priority) {
        String describe() {
            return "manager " + Long.toHexString(guid) + " (priority " + priority + ")";
        }
    }

    private final Config config;
    private final NodeChannels channels;
    private int actCount;
    private Claim watched;
    private int watchedCount = -1;
    private int stillPolls;
    /** A master that stopped: its claims left on the nodes do not count until this manager has replaced them. */
    private long gone;

    Mastership(Config config, NodeChannels channels) {
        this.config = config;
        this.channels = channels;
    }

    Config config() {
        return config;
    }

    /** The next activity count, for a claim or a heartbeat. */
    int nextActCount() {
        return ++actCount;
    }

    /** Every node now names this manager: a stopped master's claims are gone with them. */
    void claimed() {
        gone = 0;
        watched = null;
    }

    /** True if {@code c} takes precedence over this manager. */
    boolean outranksUs(Claim c) {
        return c.guid() != config.guid() && (c.priority() > config.priority()
                || (c.priority() == config.priority() && Long.compareUnsigned(c.guid(), config.guid()) < 0));
    }

    /** The strongest master claiming any node of {@code d} that outranks this manager and has not stopped. */
    Optional<Claim> rival(Discovery.Result d) {
        return d.nodes().stream().map(DiscoveredNode::smInfo)
                .filter(s -> s != null && s.getState() == SmState.SM_STATE_MASTER && s.getSmGuid() != gone)
                .map(s -> new Claim(s.getSmGuid(), s.getPriority())).filter(this::outranksUs)
                .max(Comparator.comparingInt(Claim::priority).thenComparing(Claim::guid, (a, b) -> Long.compareUnsigned(b, a)));
    }

    /** The node every manager of this fabric watches: the lowest GUID. */
    static DiscoveredNode anchor(Discovery.Result d) {
        return d.nodes().stream().min((a, b) -> Long.compareUnsigned(a.info().getNodeGuid(), b.info().getNodeGuid())).orElseThrow();
    }

    /** Standing by for {@code master}: start watching it afresh. */
    void standBy(Claim master) {
        if (!master.equals(watched)) {
            watched = master;
            watchedCount = -1;
            stillPolls = 0;
        }
    }

    /**
     * A standby's light sweep, given every node's SMInfo as read now ({@code smInfo}, in the nodes'
     * order; null where a node did not answer) and which of them is the anchor. Returns true if
     * the master does not sweep (its count stood still, or its claim is missing from a node, for
     * {@link #MISSED_POLLS} light sweeps in a row) or the anchor no longer names a master above us:
     * this manager should take over.
     */
    boolean masterGone(DiscoveredNode anchor, SmInfo anchorNow, List<SmInfo> smInfo) {
        if (anchorNow == null) {
            LOG.warn("standby: cannot read the SMInfo of {}; the next sweep will look again", anchor.info().getDescription());
            return false;
        }
        Claim now = new Claim(anchorNow.getSmGuid(), anchorNow.getPriority());
        if (anchorNow.getState() != SmState.SM_STATE_MASTER || !outranksUs(now)) {
            LOG.warn("standby: {} no longer names a master above this manager; taking over", anchor.info().getDescription());
            return true;
        }
        standBy(now);
        long unclaimed = smInfo.stream().filter(s -> s != null && (s.getSmGuid() != now.guid() || s.getState() != SmState.SM_STATE_MASTER))
                .count();
        boolean moved = anchorNow.getActCount() != watchedCount;
        watchedCount = anchorNow.getActCount();
        if (moved && unclaimed == 0) {
            stillPolls = 0;
            return false;
        }
        if (++stillPolls < MISSED_POLLS) {
            return false;
        }
        if (unclaimed > 0) {
            LOG.warn("standby: {} has not claimed {} of the {} nodes in {} light sweeps; it does not sweep: taking over",
                    watched.describe(), unclaimed, smInfo.size(), stillPolls);
        } else {
            LOG.warn("standby: {} has not raised its activity count ({}) in {} light sweeps; it has stopped: taking over",
                    watched.describe(), watchedCount, stillPolls);
        }
        gone = watched.guid();
        watched = null;
        return true;
    }

    /**
     * A master's light sweep: if another manager that outranks this one has claimed the anchor,
     * returns it (this manager stands by); otherwise raises the activity count there.
     */
    Optional<Claim> heartbeat(DiscoveredNode anchor) {
        try {
            var stub = channels.blocking(anchor.endpoint());
            SmInfo s = stub.getSmInfo(GetSmInfoRequest.getDefaultInstance());
            Claim there = new Claim(s.getSmGuid(), s.getPriority());
            if (s.getState() == SmState.SM_STATE_MASTER && outranksUs(there)) {
                return Optional.of(there);
            }
            stub.setSmInfo(SetSmInfoRequest.newBuilder().setMKey(config.mKey()).setSmGuid(config.guid()).setPriority(config.priority())
                    .setState(SmState.SM_STATE_MASTER).setActCount(nextActCount()).build());
        } catch (StatusRuntimeException e) {
            LOG.warn("cannot raise the activity count on {} ({} {}); standbys may take this manager for stopped",
                    anchor.info().getDescription(), e.getStatus().getCode(), e.getStatus().getDescription());
        }
        return Optional.empty();
    }
}
