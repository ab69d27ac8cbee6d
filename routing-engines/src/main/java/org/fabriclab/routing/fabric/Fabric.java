package org.fabriclab.routing.fabric;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * An immutable switch fabric: switches and channel adapters (CAs), their numbered ports, and the
 * links between ports, with the structure a generator knew about each node.
 *
 * <p>Everything is int-indexed and kept in primitive arrays so that routing engines and the route
 * analysis can query it from hot loops without allocating:
 * <ul>
 *   <li>a <em>node</em> is {@code 0..nodeCount()-1}, in the order the fabric was built (file order);
 *   <li>a <em>global port</em> is {@code portBase(node) + port - 1} for ports {@code 1..portCount(node)};
 *       a global port that has a link is also the id of the <em>directed channel</em> leaving the
 *       node on that port, which is how channel loads and the channel dependency graph index links;
 *   <li>switches are also numbered {@code 0..switchCount()-1} ({@link #switchIndex(int)}), and every
 *       linked CA port is an <em>endpoint</em> {@code 0..endpointCount()-1}: the sources and
 *       destinations of traffic.
 * </ul>
 * Parallel links between the same two switches are distinct ports and so distinct channels.
 * Instances are built by {@link FabricBuilder}.
 */
public final class Fabric {
    /** Marks "no such node/port/level" in the int arrays. */
    public static final int NONE = -1;

    private final String[] names;
    private final String[] descriptions;
    private final boolean[] isSwitch;
    private final long[] nodeGuids;
    private final int[] portBase;
    private final long[] portGuids;
    private final int[] peerNode;
    private final int[] peerPort;
    /** The node owning each global port. */
    private final int[] ownerNode;
    private final int[] level;
    private final int[] group;
    private final int[][] coords;
    private final int[] preferredLid;
    private final int[] switches;
    private final int[] switchIndex;
    private final int[] endpointPort;
    private final int[] endpointOfPort;
    /** Per global port, its link's propagation delay in ns, or -1 where the fabric does not say. */
    private final long[] linkDelayNs;
    private final int linkCount;
    private final String kind;
    private final Map<String, Integer> byName;
    private final Map<Long, Integer> byGuid;

    Fabric(FabricBuilder b) {
        int n = b.nodeCount();
        names = b.names.toArray(new String[0]);
        descriptions = b.descriptions.toArray(new String[0]);
        isSwitch = new boolean[n];
        nodeGuids = new long[n];
        portBase = new int[n + 1];
        level = new int[n];
        group = new int[n];
        coords = new int[n][];
        preferredLid = new int[n];
        for (int i = 0; i < n; i++) {
            isSwitch[i] = b.types.get(i) == NodeType.SWITCH;
            nodeGuids[i] = b.guids.get(i);
            portBase[i + 1] = portBase[i] + b.portCounts.get(i);
            level[i] = b.levels.get(i);
            group[i] = b.groups.get(i);
            coords[i] = b.coords.get(i);
            preferredLid[i] = b.preferredLids.get(i);
        }
        int ports = portBase[n];
        ownerNode = new int[ports];
        for (int i = 0; i < n; i++) {
            Arrays.fill(ownerNode, portBase[i], portBase[i + 1], i);
        }
        peerNode = new int[ports];
        peerPort = new int[ports];
        portGuids = new long[ports];
        Arrays.fill(peerNode, NONE);
        Arrays.fill(peerPort, NONE);
        int links = 0;
        for (int[] l : b.links) {
            int ga = portBase[l[0]] + l[1] - 1;
            int gb = portBase[l[2]] + l[3] - 1;
            peerNode[ga] = l[2];
            peerPort[ga] = l[3];
            peerNode[gb] = l[0];
            peerPort[gb] = l[1];
            links++;
        }
        linkCount = links;
        linkDelayNs = new long[ports];
        Arrays.fill(linkDelayNs, -1);
        for (int i = 0; i < n; i++) {
            for (int p = 1; p <= portCount(i); p++) {
                Long d = b.linkDelays.get(portKey(i, p));
                if (d != null) {
                    linkDelayNs[portBase[i] + p - 1] = d;
                }
            }
        }
        for (int i = 0; i < n; i++) {
            for (int p = 1; p <= portCount(i); p++) {
                Long explicit = b.portGuids.get(portKey(i, p));
                // ibsim's rule: a switch has one port GUID (its node GUID); CA port p is node GUID + p.
                portGuids[portBase[i] + p - 1] = explicit != null ? explicit
                        : isSwitch[i] ? nodeGuids[i] : nodeGuids[i] + p;
            }
        }
        switchIndex = new int[n];
        int sw = 0;
        for (int i = 0; i < n; i++) {
            switchIndex[i] = isSwitch[i] ? sw++ : NONE;
        }
        switches = new int[sw];
        for (int i = 0; i < n; i++) {
            if (isSwitch[i]) {
                switches[switchIndex[i]] = i;
            }
        }
        endpointOfPort = new int[ports];
        Arrays.fill(endpointOfPort, NONE);
        int ep = 0;
        for (int i = 0; i < n; i++) {
            if (!isSwitch[i]) {
                for (int p = 1; p <= portCount(i); p++) {
                    if (peerNode[portBase[i] + p - 1] != NONE) {
                        endpointOfPort[portBase[i] + p - 1] = ep++;
                    }
                }
            }
        }
        endpointPort = new int[ep];
        for (int g = 0; g < ports; g++) {
            if (endpointOfPort[g] != NONE) {
                endpointPort[endpointOfPort[g]] = g;
            }
        }
        kind = b.kind;
        Map<String, Integer> nameMap = new HashMap<>(n * 2);
        Map<Long, Integer> guidMap = new HashMap<>(n * 2);
        for (int i = 0; i < n; i++) {
            nameMap.put(names[i], i);
            guidMap.put(nodeGuids[i], i);
        }
        byName = Collections.unmodifiableMap(nameMap);
        byGuid = Collections.unmodifiableMap(guidMap);
    }

    static long portKey(int node, int port) {
        return ((long) node << 16) | port;
    }

    /** What built this fabric: a topology spec ({@code fat-tree:k=4,levels=3}) or {@code file:PATH}. */
    public String kind() {
        return kind;
    }

    public int nodeCount() {
        return names.length;
    }

    public int switchCount() {
        return switches.length;
    }

    /** Number of CA nodes (hosts). */
    public int caCount() {
        return names.length - switches.length;
    }

    /** Number of linked CA ports: the sources and destinations of traffic. */
    public int endpointCount() {
        return endpointPort.length;
    }

    /** Number of undirected links (each cable once; parallel cables count separately). */
    public int linkCount() {
        return linkCount;
    }

    /** Number of global ports (linked or not): the size of any per-port or per-channel array. */
    public int globalPortCount() {
        return peerNode.length;
    }

    public boolean isSwitch(int node) {
        return isSwitch[node];
    }

    public NodeType type(int node) {
        return isSwitch[node] ? NodeType.SWITCH : NodeType.CA;
    }

    public String name(int node) {
        return names[node];
    }

    /** The node description (ibnetdiscover's {@code # "desc"}); the name where none was given. */
    public String description(int node) {
        return descriptions[node];
    }

    public long nodeGuid(int node) {
        return nodeGuids[node];
    }

    public int portCount(int node) {
        return portBase[node + 1] - portBase[node];
    }

    /** Global index of port 1 of {@code node}; port p is {@code portBase(node) + p - 1}. */
    public int portBase(int node) {
        return portBase[node];
    }

    /** Global index of {@code port} (1-based) of {@code node}. */
    public int globalPort(int node, int port) {
        assert port >= 1 && port <= portCount(node) : "port " + port + " of " + names[node];
        return portBase[node] + port - 1;
    }

    /** The node owning a global port. */
    public int nodeOfGlobalPort(int globalPort) {
        return ownerNode[globalPort];
    }

    /** The port number (1-based) of a global port. */
    public int portNumberOfGlobalPort(int globalPort) {
        return globalPort - portBase[nodeOfGlobalPort(globalPort)] + 1;
    }

    /** Port GUID of a port (switch: the node GUID; CA: per port). */
    public long portGuid(int node, int port) {
        return portGuids[portBase[node] + port - 1];
    }

    /** The node on the other end of a global port, or {@link #NONE} if it has no link. */
    public int peerNode(int globalPort) {
        return peerNode[globalPort];
    }

    /** The port number on the other end of a global port, or {@link #NONE}. */
    public int peerPort(int globalPort) {
        return peerPort[globalPort];
    }

    /** The global port on the other end of a global port, or {@link #NONE}. */
    public int peerGlobalPort(int globalPort) {
        int n = peerNode[globalPort];
        return n == NONE ? NONE : portBase[n] + peerPort[globalPort] - 1;
    }

    /** True if this global port leads from a switch to another switch: an inter-switch channel. */
    public boolean isInterSwitch(int globalPort) {
        int n = peerNode[globalPort];
        return n != NONE && isSwitch[n] && isSwitch[nodeOfGlobalPort(globalPort)];
    }

    /**
     * The propagation delay of the link on a global port in ns, as the topology gives it (a
     * Dragonfly's local and global cables), or -1 where it does not say: a simulation or an
     * emulation then uses the delay it was given for every link.
     */
    public long linkDelayNs(int globalPort) {
        return linkDelayNs[globalPort];
    }

    /** True if the topology gives any link a delay of its own. */
    public boolean hasLinkDelays() {
        for (long d : linkDelayNs) {
            if (d >= 0) {
                return true;
            }
        }
        return false;
    }

    /** Tree level (leaves 1, their parents 2, ...), or {@link #NONE} where the generator did not say. */
    public int level(int node) {
        return level[node];
    }

    /** Dragonfly group, or {@link #NONE}. */
    public int group(int node) {
        return group[node];
    }

    /** Torus/mesh coordinates (a copy), or empty where unknown. */
    public Optional<int[]> coordinates(int node) {
        return coords[node] == null ? Optional.empty() : Optional.of(coords[node].clone());
    }

    /** A LID the generator asks for (a paper's numbering), or 0. */
    public int preferredLid(int node) {
        return preferredLid[node];
    }

    /** Switch number {@code 0..switchCount()-1} of a node, or {@link #NONE} for a CA. */
    public int switchIndex(int node) {
        return switchIndex[node];
    }

    /** The node of switch number {@code s}. */
    public int switchNode(int s) {
        return switches[s];
    }

    /** Global port of endpoint {@code e} (a linked CA port). */
    public int endpointPort(int e) {
        return endpointPort[e];
    }

    /** Endpoint number of a global port, or {@link #NONE} if it is not a linked CA port. */
    public int endpointOfPort(int globalPort) {
        return endpointOfPort[globalPort];
    }

    /** The CA node of endpoint {@code e}. */
    public int endpointNode(int e) {
        return nodeOfGlobalPort(endpointPort[e]);
    }

    /** The switch an endpoint is cabled to, or {@link #NONE} when it is cabled to another CA. */
    public int endpointSwitch(int e) {
        int peer = peerNode[endpointPort[e]];
        return isSwitch[peer] ? peer : NONE;
    }

    /** A readable name of an endpoint: the CA's name, with {@code /P<port>} if it has several ports. */
    public String endpointName(int e) {
        int g = endpointPort[e];
        int node = nodeOfGlobalPort(g);
        return portCount(node) == 1 ? names[node] : names[node] + "/P" + (g - portBase[node] + 1);
    }

    public Optional<Integer> nodeByName(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    public Optional<Integer> nodeByGuid(long guid) {
        return Optional.ofNullable(byGuid.get(guid));
    }

    /**
     * This fabric with some links removed (a fault): the nodes, ports and GUIDs stay as they are.
     *
     * @param globalPorts one global port of each link to remove (either end)
     */
    public Fabric withoutLinks(int... globalPorts) {
        FabricBuilder b = FabricBuilder.copyOf(this);
        for (int g : globalPorts) {
            int node = nodeOfGlobalPort(g);
            b.unlink(node, g - portBase[node] + 1);
        }
        return b.build();
    }

    @Override
    public String toString() {
        return kind + " (" + switchCount() + " switches, " + caCount() + " CAs, " + linkCount + " links)";
    }
}
