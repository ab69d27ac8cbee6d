package org.fabriclab.routing.dragonfly;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * What one router of a Dragonfly holds to route by {@link DragonflyRules}: the algorithm and its
 * parameters, the seed of its random choices, its place (group, index; the numbers of groups,
 * routers a group and host slots a router), what each of its ports leads to (a host, a router of
 * its group, another group; several links to one place are parallel: {@link #parallels}), which
 * router of its group holds a global link to each other group (its gateway), where every LID is
 * ({@link DragonflyLids}), and for Q-adaptive the Q-table it starts from (its seed: rows =
 * destination group x source host slot, columns = its non-host ports, local ports first, then
 * global, each in port order; nanoseconds).
 *
 * <p>The manager computes it (the Dragonfly engines) and writes it to the switch in the versioned
 * table write; the switch core reads it per packet through arrays sized here, so nothing is
 * allocated on the hot path. Immutable; the arrays it returns are its own (do not modify).
 */
public final class DragonflySwitch {
    public static final byte NONE = 0;
    public static final byte HOST = 1;
    public static final byte LOCAL = 2;
    public static final byte GLOBAL = 3;

    private final DragonflyAlgorithm algorithm;
    private final DragonflyParams params;
    private final long seed;
    private final int group;
    private final int index;
    private final int groups;
    private final int routers;
    private final int hostsPerRouter;
    private final byte[] portKind;
    private final int[] portPeer;
    private final int[] gateway;
    private final DragonflyLids lids;
    private final float[] qSeed;
    // derived
    private final int[] localPortTo;
    private final int[] globalPortTo;
    private final int[] columnOfPort;
    private final int[] portOfColumn;
    private final int localColumns;
    /**
     * Ports in runs of the links leading to one place (one router of the group, one other group),
     * each run in port order; per port, where its run starts and how long it is (a host port or
     * none: a run of itself).
     */
    private final int[] parallelPorts;
    private final int[] parallelStart;
    private final int[] parallelCount;

    /**
     * @param portKind per port 0..ports ({@link #NONE}, {@link #HOST}, {@link #LOCAL}, {@link #GLOBAL}; port 0 is NONE)
     * @param portPeer per port: the router index a LOCAL port leads to, the group a GLOBAL port leads to, -1 otherwise
     * @param gateway  per group: the index of the router of this group with a global link to it (-1 for its own group)
     * @param qSeed    the Q-table to start from (Q-adaptive only, else null), {@code groups * hostsPerRouter} rows of
     *                 one value per non-host port
     * @throws IllegalArgumentException naming the first inconsistency ({@link #problems})
     */
    public DragonflySwitch(DragonflyAlgorithm algorithm, DragonflyParams params, long seed, int group, int index, int groups,
                           int routers, int hostsPerRouter, byte[] portKind, int[] portPeer, int[] gateway, DragonflyLids lids,
                           float[] qSeed) {
        this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
        this.params = Objects.requireNonNull(params, "params");
        this.seed = seed;
        this.group = group;
        this.index = index;
        this.groups = groups;
        this.routers = routers;
        this.hostsPerRouter = hostsPerRouter;
        this.portKind = portKind.clone();
        this.portPeer = portPeer.clone();
        this.gateway = gateway.clone();
        this.lids = Objects.requireNonNull(lids, "lids");
        this.qSeed = qSeed == null ? null : qSeed.clone();
        List<String> why = structureProblems();
        if (!why.isEmpty()) {
            throw new IllegalArgumentException(why.get(0));
        }
        int ports = portKind.length - 1;
        localPortTo = new int[routers];
        globalPortTo = new int[groups];
        columnOfPort = new int[ports + 1];
        Arrays.fill(columnOfPort, -1);
        List<Integer> columns = new ArrayList<>();
        for (byte kind : new byte[] {LOCAL, GLOBAL}) {
            for (int p = 1; p <= ports; p++) {
                if (portKind[p] == kind) {
                    columnOfPort[p] = columns.size();
                    columns.add(p);
                    int[] to = kind == LOCAL ? localPortTo : globalPortTo;
                    if (to[portPeer[p]] == 0) {
                        to[portPeer[p]] = p;
                    }
                }
            }
        }
        portOfColumn = columns.stream().mapToInt(Integer::intValue).toArray();
        int locals = 0;
        for (int p = 1; p <= ports; p++) {
            locals += portKind[p] == LOCAL ? 1 : 0;
        }
        localColumns = locals;
        parallelPorts = new int[ports + 1];
        parallelStart = new int[ports + 1];
        parallelCount = new int[ports + 1];
        boolean[] placed = new boolean[ports + 1];
        int next = 0;
        for (int p = 0; p <= ports; p++) {
            if (placed[p]) {
                continue;
            }
            int start = next;
            for (int q = p; q <= ports; q++) {
                if (q == p || !placed[q] && portKind[p] >= LOCAL && portKind[q] == portKind[p] && portPeer[q] == portPeer[p]) {
                    placed[q] = true;
                    parallelPorts[next++] = q;
                }
            }
            for (int i = start; i < next; i++) {
                parallelStart[parallelPorts[i]] = start;
                parallelCount[parallelPorts[i]] = next - start;
            }
        }
        List<String> more = reachProblems();
        if (!more.isEmpty()) {
            throw new IllegalArgumentException(more.get(0));
        }
    }

    /** What is wrong with the description itself (sizes, ranges), before the maps are derived. */
    private List<String> structureProblems() {
        List<String> out = new ArrayList<>();
        if (groups < 2 || groups > DragonflyHeader.MAX_GROUPS || routers < 1 || routers > DragonflyHeader.MAX_ROUTERS
                || hostsPerRouter < 0 || hostsPerRouter > 255) {
            out.add("a dragonfly of " + groups + " groups of " + routers + " routers with " + hostsPerRouter
                    + " hosts each is out of range (2.." + DragonflyHeader.MAX_GROUPS + " groups, 1.." + DragonflyHeader.MAX_ROUTERS
                    + " routers, 0..255 hosts)");
            return out;
        }
        if (group < 0 || group >= groups || index < 0 || index >= routers) {
            out.add("router " + index + " of group " + group + " is outside " + groups + " groups of " + routers + " routers");
        }
        if (portKind.length < 2 || portKind.length != portPeer.length) {
            out.add("port kinds (" + portKind.length + ") and peers (" + portPeer.length + ") must describe ports 0..ports alike");
            return out;
        }
        if (portKind[0] != NONE) {
            out.add("port 0 is the switch itself; its kind must be none");
        }
        for (int p = 1; p < portKind.length; p++) {
            byte k = portKind[p];
            int peer = portPeer[p];
            if (k == LOCAL && (peer < 0 || peer >= routers || peer == index)) {
                out.add("local port " + p + " leads to router " + peer + ", not another of the group's " + routers);
            } else if (k == GLOBAL && (peer < 0 || peer >= groups || peer == group)) {
                out.add("global port " + p + " leads to group " + peer + ", not another of the " + groups);
            } else if (k < NONE || k > GLOBAL) {
                out.add("port " + p + " has kind " + k + " (0 none, 1 host, 2 local, 3 global)");
            }
        }
        if (gateway.length != groups) {
            out.add("gateways name " + gateway.length + " groups, not " + groups);
        }
        return out;
    }

    /** Every other group reachable (directly or by the gateway), every other router by a local port, the Q seed's shape. */
    private List<String> reachProblems() {
        List<String> out = new ArrayList<>();
        for (int r = 0; r < routers; r++) {
            if (r != index && localPortTo[r] == 0) {
                out.add("no local port to router " + r + " of group " + group);
            }
        }
        for (int t = 0; t < groups; t++) {
            if (t == group) {
                continue;
            }
            int gw = gateway[t];
            if (globalPortTo[t] == 0 && (gw < 0 || gw >= routers || gw == index || localPortTo[gw] == 0)) {
                out.add("group " + t + " is reached by no global port of this router and its gateway " + gw + " is no other router");
            }
        }
        if (algorithm == DragonflyAlgorithm.Q_ADAPTIVE) {
            if (qSeed == null || qSeed.length != rows() * columns()) {
                out.add("Q-adaptive needs a Q-table seed of " + rows() + " rows x " + columns() + " columns, not "
                        + (qSeed == null ? "none" : qSeed.length + " values"));
            } else {
                for (int i = 0; i < qSeed.length; i++) {
                    if (!(qSeed[i] >= 0 && qSeed[i] < 1e12f)) {
                        out.add("Q-table seed value " + qSeed[i] + " at row " + i / columns() + ", column " + i % columns()
                                + " is not a time in ns");
                        break;
                    }
                }
            }
        } else if (qSeed != null) {
            out.add(algorithm.key() + " keeps no Q-table; a seed was given");
        }
        return out;
    }

    /** True if this router's ports are as a switch of {@code ports} ports can have them. */
    public boolean fits(int ports) {
        return portKind.length == ports + 1;
    }

    public DragonflyAlgorithm algorithm() {
        return algorithm;
    }

    public DragonflyParams params() {
        return params;
    }

    /** The seed of the router's random choices (intermediates, exploration). */
    public long seed() {
        return seed;
    }

    public int group() {
        return group;
    }

    public int index() {
        return index;
    }

    public int groups() {
        return groups;
    }

    public int routers() {
        return routers;
    }

    public int hostsPerRouter() {
        return hostsPerRouter;
    }

    public DragonflyLids lids() {
        return lids;
    }

    /** Ports described (the switch's port count). */
    public int ports() {
        return portKind.length - 1;
    }

    public byte kind(int port) {
        return port >= 0 && port < portKind.length ? portKind[port] : NONE;
    }

    /** The router index (local port) or group (global port) {@code port} leads to, -1 otherwise. */
    public int peer(int port) {
        return port >= 0 && port < portPeer.length ? portPeer[port] : -1;
    }

    /** The port to router {@code r} of this group (its lowest, where it has several: {@link #parallel}), 0 for itself. Hot path. */
    public int localPort(int r) {
        return localPortTo[r];
    }

    /** This router's port to group {@code g} (its lowest, where it has several: {@link #parallel}), 0 if it has none. Hot path. */
    public int globalPort(int g) {
        return globalPortTo[g];
    }

    /**
     * How many of this router's links lead where {@code port} leads (the same router of its group,
     * or the same other group): 1 for a port without parallel links, a host port or none. Hot path.
     */
    public int parallels(int port) {
        return parallelCount[port];
    }

    /**
     * The {@code k}-th ({@code 0..parallels(port)-1}, in port order) of the links leading where
     * {@code port} leads; {@code parallel(p, 0)} is the lowest, the one {@link #globalPort} and
     * {@link #localPort} name. Hot path.
     */
    public int parallel(int port, int k) {
        return parallelPorts[parallelStart[port] + k];
    }

    /** True if {@code a} and {@code b} are links to the same place (the same port, or parallel links). Hot path. */
    public boolean sameWay(int a, int b) {
        return parallelStart[a] == parallelStart[b];
    }

    /** The index of this group's router with a global link to group {@code g} (-1 for this group). */
    public int gateway(int g) {
        return gateway[g];
    }

    /** The Q-table column of {@code port}, -1 for a host port or none. Hot path. */
    public int column(int port) {
        return port >= 0 && port < columnOfPort.length ? columnOfPort[port] : -1;
    }

    /** The port of Q-table column {@code c}. Hot path. */
    public int portOfColumn(int c) {
        return portOfColumn[c];
    }

    /** Q-table columns: the non-host ports, local first. */
    public int columns() {
        return portOfColumn.length;
    }

    /** Local ports: Q-table columns {@code 0..localColumns()-1}. */
    public int localColumns() {
        return localColumns;
    }

    /** Q-table rows: groups x host slots. */
    public int rows() {
        return groups * hostsPerRouter;
    }

    /** The Q-table row of a packet to group {@code dstGroup} from host slot {@code slot}. */
    public int row(int dstGroup, int slot) {
        return dstGroup * hostsPerRouter + slot;
    }

    /** The Q-table to start from (do not modify), or null for an algorithm without one. */
    public float[] qSeed() {
        return qSeed;
    }

    /** A copy of the port kinds, 0..ports. */
    public byte[] portKinds() {
        return portKind.clone();
    }

    /** A copy of the port peers, 0..ports. */
    public int[] portPeers() {
        return portPeer.clone();
    }

    /** A copy of the gateways, per group. */
    public int[] gateways() {
        return gateway.clone();
    }

    /** This router with the Q-table seed {@code seed} (null: none). */
    public DragonflySwitch withQSeed(float[] seed) {
        return new DragonflySwitch(algorithm, params, this.seed, group, index, groups, routers, hostsPerRouter, portKind, portPeer,
                gateway, lids, seed);
    }

    /** The same description, field by field; the Q seed compared by value. */
    @Override
    public boolean equals(Object o) {
        return o instanceof DragonflySwitch d && sameRouting(d) && Arrays.equals(d.qSeed, qSeed);
    }

    /** The same routing state but for the Q seed: a write that changes only the seed reseeds and nothing else. */
    public boolean sameRouting(DragonflySwitch d) {
        return d != null && d.algorithm == algorithm && d.params.equals(params) && d.seed == seed && d.group == group
                && d.index == index && d.groups == groups && d.routers == routers && d.hostsPerRouter == hostsPerRouter
                && Arrays.equals(d.portKind, portKind) && Arrays.equals(d.portPeer, portPeer) && Arrays.equals(d.gateway, gateway)
                && d.lids.equals(lids);
    }

    @Override
    public int hashCode() {
        return Objects.hash(algorithm, params, seed, group, index, Arrays.hashCode(portKind));
    }

    @Override
    public String toString() {
        return algorithm.key() + " router " + index + " of group " + group + " (" + groups + " groups of " + routers + ", " + columns()
                + " non-host ports)";
    }
}
