package org.fabriclab.routing.topology;

import java.util.List;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.FabricBuilder;

/**
 * Tori and meshes of any number of dimensions. Switch {@code T<c0>_<c1>...} has port 2k+1 towards
 * +1 in dimension k and port 2k+2 towards -1, then its hosts {@code H<c0>_<c1>..._<i>}. A dimension
 * of size 2 is a single link between its two switches (as on Angara, where a ring of two would be a
 * pair of parallel cables to the same neighbour); a mesh has no wrap-around links.
 */
final class Tori {
    private Tori() {
    }

    static Fabric torus(TopologySpec spec, boolean mesh) {
        String dimsText = spec.positional();
        TopologySpec.require(dimsText != null, spec.kind() + ": give the dimensions, e.g. " + spec.kind() + ":4x4x4,hosts=1");
        int[] dims = TopologySpec.parseList(dimsText, spec.kind() + " dimensions");
        int hosts = spec.intParam("hosts", 1);
        spec.checkAllUsed(List.of("hosts"));
        for (int d : dims) {
            TopologySpec.require(d >= 1, spec.kind() + ": every dimension must be at least 1");
        }
        TopologySpec.require(hosts >= 0, spec.kind() + ": hosts must be >= 0");
        return build(spec.text(), dims, hosts, mesh);
    }

    static Fabric build(String kind, int[] dims, int hosts, boolean mesh) {
        int nd = dims.length;
        long count = TopologySpec.product(dims);
        TopologySpec.require(count <= 50_000, "a torus of " + TopologySpec.size(count) + " switches is larger than the 50,000 this tool builds");
        int ports = 2 * nd + hosts;
        TopologySpec.require(ports <= FabricBuilder.MAX_PORTS, "torus switches would need " + ports + " ports");
        FabricBuilder b = new FabricBuilder(kind);
        int n = (int) count;
        int[] ids = new int[n];
        int[][] coords = new int[n][];
        for (int i = 0; i < n; i++) {
            coords[i] = decode(i, dims);
            ids[i] = b.addSwitch("T" + join(coords[i]), ports);
            b.coordinates(ids[i], coords[i]);
        }
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < hosts; k++) {
                int ca = b.addCa("H" + join(coords[i]) + "_" + k, 1);
                b.coordinates(ca, coords[i]);
                b.link(ids[i], 2 * nd + 1 + k, ca, 1);
            }
        }
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < nd; k++) {
                int c = coords[i][k];
                if (dims[k] == 1) {
                    continue;
                }
                boolean wraps = c == dims[k] - 1;
                if (wraps && (mesh || dims[k] == 2)) {
                    continue;
                }
                int[] next = coords[i].clone();
                next[k] = (c + 1) % dims[k];
                b.link(ids[i], 2 * k + 1, ids[encode(next, dims)], 2 * k + 2);
            }
        }
        return b.build();
    }

    /** Row-major with the last coordinate fastest, as the peer's generator orders switches. */
    private static int[] decode(int index, int[] dims) {
        int[] c = new int[dims.length];
        for (int k = dims.length - 1; k >= 0; k--) {
            c[k] = index % dims[k];
            index /= dims[k];
        }
        return c;
    }

    private static int encode(int[] c, int[] dims) {
        int index = 0;
        for (int k = 0; k < dims.length; k++) {
            index = index * dims[k] + c[k];
        }
        return index;
    }

    private static String join(int[] c) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < c.length; i++) {
            if (i > 0) {
                sb.append('_');
            }
            sb.append(c[i]);
        }
        return sb.toString();
    }
}
