package org.fabriclab.routing.fabric;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntPredicate;

/**
 * Builds a {@link Fabric}. Not thread-safe; one builder builds one fabric.
 *
 * <p>Every method checks its arguments and throws {@link IllegalArgumentException} with a message
 * naming the node and port, so a generator bug or a bad file never yields a half-valid fabric.
 * Default GUIDs follow ibsim's scheme, so that a fabric written as a {@code net} file and loaded by
 * ibsim keeps the same GUIDs: switches from {@code 0x200000} one each, CAs from {@code 0x100000}
 * taking {@code ports + 1} each (port p is node GUID + p).
 */
public final class FabricBuilder {
    /** InfiniBand switches have at most 254 external ports (port 255 is reserved). */
    public static final int MAX_PORTS = 254;
    public static final long DEFAULT_SWITCH_GUID_BASE = 0x200000L;
    public static final long DEFAULT_CA_GUID_BASE = 0x100000L;

    final List<String> names = new ArrayList<>();
    final List<String> descriptions = new ArrayList<>();
    final List<NodeType> types = new ArrayList<>();
    final List<Long> guids = new ArrayList<>();
    final List<Integer> portCounts = new ArrayList<>();
    final List<Integer> levels = new ArrayList<>();
    final List<Integer> groups = new ArrayList<>();
    final List<int[]> coords = new ArrayList<>();
    final List<Integer> preferredLids = new ArrayList<>();
    final Map<Long, Long> portGuids = new HashMap<>();
    final List<int[]> links = new ArrayList<>();
    /** Per cabled port ({@link Fabric#portKey}), the link's propagation delay in ns where the generator set one. */
    final Map<Long, Long> linkDelays = new HashMap<>();
    private final Map<String, Integer> byName = new HashMap<>();
    private final Set<Long> usedGuids = new HashSet<>();
    private final Map<Long, int[]> cabled = new HashMap<>();
    private long nextSwitchGuid = DEFAULT_SWITCH_GUID_BASE;
    private long nextCaGuid = DEFAULT_CA_GUID_BASE;
    String kind;

    public FabricBuilder(String kind) {
        this.kind = kind;
    }

    /** A builder holding everything {@code f} holds, to derive a changed fabric from it. */
    public static FabricBuilder copyOf(Fabric f) {
        return copyWithout(f, n -> false);
    }

    /**
     * A builder holding everything {@code f} holds but the nodes {@code drop} names and their links:
     * a fabric with failed nodes. The kept nodes keep their names, GUIDs and order.
     */
    public static FabricBuilder copyWithout(Fabric f, IntPredicate drop) {
        FabricBuilder b = new FabricBuilder(f.kind());
        int[] kept = new int[f.nodeCount()];
        for (int n = 0; n < f.nodeCount(); n++) {
            if (drop.test(n)) {
                kept[n] = -1;
                continue;
            }
            kept[n] = b.addNode(f.type(n), f.name(n), f.portCount(n), f.nodeGuid(n));
            b.description(kept[n], f.description(n));
            b.level(kept[n], f.level(n));
            b.group(kept[n], f.group(n));
            f.coordinates(n).ifPresent(c -> b.coords.set(b.nodeCount() - 1, c));
            b.preferredLid(kept[n], f.preferredLid(n));
            for (int p = 1; p <= f.portCount(n); p++) {
                b.portGuids.put(Fabric.portKey(kept[n], p), f.portGuid(n, p));
            }
        }
        for (int g = 0; g < f.globalPortCount(); g++) {
            int peer = f.peerGlobalPort(g);
            if (peer > g) {
                int a = f.nodeOfGlobalPort(g);
                int z = f.nodeOfGlobalPort(peer);
                if (kept[a] >= 0 && kept[z] >= 0) {
                    b.link(kept[a], g - f.portBase(a) + 1, kept[z], peer - f.portBase(z) + 1);
                    if (f.linkDelayNs(g) >= 0) {
                        b.linkDelay(kept[a], g - f.portBase(a) + 1, f.linkDelayNs(g));
                    }
                }
            }
        }
        return b;
    }

    public int nodeCount() {
        return names.size();
    }

    /** Adds a switch with a GUID from ibsim's default sequence; returns its node id. */
    public int addSwitch(String name, int ports) {
        return addNode(NodeType.SWITCH, name, ports, nextFreeGuid(NodeType.SWITCH, ports));
    }

    /** Adds a channel adapter with a GUID from ibsim's default sequence; returns its node id. */
    public int addCa(String name, int ports) {
        return addNode(NodeType.CA, name, ports, nextFreeGuid(NodeType.CA, ports));
    }

    private long nextFreeGuid(NodeType type, int ports) {
        if (type == NodeType.SWITCH) {
            while (usedGuids.contains(nextSwitchGuid)) {
                nextSwitchGuid++;
            }
            return nextSwitchGuid++;
        }
        while (usedGuids.contains(nextCaGuid)) {
            nextCaGuid += ports + 1;
        }
        long g = nextCaGuid;
        nextCaGuid += ports + 1;
        return g;
    }

    /** Adds a node with an explicit node GUID; returns its node id. */
    public int addNode(NodeType type, String name, int ports, long guid) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("a node needs a non-empty name");
        }
        if (byName.containsKey(name)) {
            throw new IllegalArgumentException("duplicate node name \"" + name + "\"");
        }
        if (ports < 1 || ports > MAX_PORTS) {
            throw new IllegalArgumentException("node \"" + name + "\" declares " + ports
                    + " ports; a node has 1 to " + MAX_PORTS);
        }
        if (!usedGuids.add(guid)) {
            throw new IllegalArgumentException("node \"" + name + "\" reuses GUID " + Guids.format(guid)
                    + " of \"" + names.get(indexOfGuid(guid)) + "\"");
        }
        int id = names.size();
        names.add(name);
        descriptions.add(name);
        types.add(type);
        guids.add(guid);
        portCounts.add(ports);
        levels.add(Fabric.NONE);
        groups.add(Fabric.NONE);
        coords.add(null);
        preferredLids.add(0);
        byName.put(name, id);
        return id;
    }

    private int indexOfGuid(long guid) {
        return guids.indexOf(guid);
    }

    /** Makes the default GUID sequence of {@code type} continue from {@code base} (net files' {@code switchguid=}). */
    public FabricBuilder guidBase(NodeType type, long base) {
        if (type == NodeType.SWITCH) {
            nextSwitchGuid = base;
        } else {
            nextCaGuid = base;
        }
        return this;
    }

    public Integer nodeId(String name) {
        return byName.get(name);
    }

    public String name(int node) {
        return names.get(node);
    }

    public int portCount(int node) {
        return portCounts.get(node);
    }

    public FabricBuilder description(int node, String description) {
        descriptions.set(node, description == null || description.isEmpty() ? names.get(node) : description);
        return this;
    }

    public FabricBuilder level(int node, int level) {
        levels.set(node, level);
        return this;
    }

    public FabricBuilder group(int node, int group) {
        groups.set(node, group);
        return this;
    }

    public FabricBuilder coordinates(int node, int... c) {
        coords.set(node, c.clone());
        return this;
    }

    /** Asks LID assignment to give this node (switch) or its first port (CA) this LID. */
    public FabricBuilder preferredLid(int node, int lid) {
        preferredLids.set(node, lid);
        return this;
    }

    public FabricBuilder portGuid(int node, int port, long guid) {
        checkPort(node, port);
        portGuids.put(Fabric.portKey(node, port), guid);
        return this;
    }

    /** The other end of a port if it is cabled, as {@code {node, port}}, else null. */
    public int[] peer(int node, int port) {
        return cabled.get(Fabric.portKey(node, port));
    }

    /** Cables port {@code pa} of node {@code a} to port {@code pb} of node {@code b}. */
    public FabricBuilder link(int a, int pa, int b, int pb) {
        checkPort(a, pa);
        checkPort(b, pb);
        if (a == b && pa == pb) {
            throw new IllegalArgumentException("port " + pa + " of \"" + names.get(a) + "\" cannot be cabled to itself");
        }
        if (types.get(a) == NodeType.CA && types.get(b) == NodeType.CA) {
            throw new IllegalArgumentException("CA \"" + names.get(a) + "\" is cabled to CA \"" + names.get(b)
                    + "\": back-to-back adapters without a switch are not supported");
        }
        for (int[] end : new int[][] {{a, pa}, {b, pb}}) {
            int[] other = cabled.get(Fabric.portKey(end[0], end[1]));
            if (other != null) {
                throw new IllegalArgumentException("port " + end[1] + " of \"" + names.get(end[0])
                        + "\" is already cabled to port " + other[1] + " of \"" + names.get(other[0]) + "\"");
            }
        }
        cabled.put(Fabric.portKey(a, pa), new int[] {b, pb});
        cabled.put(Fabric.portKey(b, pb), new int[] {a, pa});
        links.add(new int[] {a, pa, b, pb});
        return this;
    }

    /**
     * Sets the propagation delay of the link cabled on port {@code port} of {@code node} (both
     * directions), as a topology with link lengths gives it (a Dragonfly's short local and long
     * global cables). Links without one take the delay a simulation or emulation is given.
     */
    public FabricBuilder linkDelay(int node, int port, long ns) {
        checkPort(node, port);
        int[] other = cabled.get(Fabric.portKey(node, port));
        if (other == null) {
            throw new IllegalArgumentException("port " + port + " of \"" + names.get(node) + "\" is not cabled: it has no link delay");
        }
        if (ns < 0) {
            throw new IllegalArgumentException("link delay " + ns + " ns of port " + port + " of \"" + names.get(node) + "\" is negative");
        }
        linkDelays.put(Fabric.portKey(node, port), ns);
        linkDelays.put(Fabric.portKey(other[0], other[1]), ns);
        return this;
    }

    /** Removes the cable on a port (both ends); does nothing if the port is not cabled. */
    public FabricBuilder unlink(int node, int port) {
        int[] other = cabled.remove(Fabric.portKey(node, port));
        if (other == null) {
            return this;
        }
        cabled.remove(Fabric.portKey(other[0], other[1]));
        linkDelays.remove(Fabric.portKey(node, port));
        linkDelays.remove(Fabric.portKey(other[0], other[1]));
        for (Iterator<int[]> it = links.iterator(); it.hasNext();) {
            int[] l = it.next();
            if ((l[0] == node && l[1] == port) || (l[2] == node && l[3] == port)) {
                it.remove();
                break;
            }
        }
        return this;
    }

    private void checkPort(int node, int port) {
        if (node < 0 || node >= names.size()) {
            throw new IllegalArgumentException("no node " + node);
        }
        if (port < 1 || port > portCounts.get(node)) {
            throw new IllegalArgumentException("port " + port + " is out of range for \"" + names.get(node)
                    + "\", which has ports 1.." + portCounts.get(node));
        }
    }

    public Fabric build() {
        return new Fabric(this);
    }
}
