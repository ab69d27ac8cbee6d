package org.fabriclab.routing.topology;

import java.io.IOException;
import java.io.Reader;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.format.NetFile;

/**
 * Builds a fabric from a topology spec. Every spec the command-line tools accept:
 *
 * <pre>
 * fat-tree:k=K[,levels=N]               k-ary n-tree (default 3 levels)
 * xgft:m=M1xM2..,w=W1xW2..              extended generalized fat tree (w1 = 1)
 * rlft:leaves=L[,spines=S,hosts=H,parallel=P]   two-level fat tree, P parallel links per leaf/spine pair
 * dragonfly:p=P,a=A,h=H[,g=G][,trunk=N] dragonfly, absolute global arrangement, N links a pair of groups
 * dragonfly-plus:p=P,leaves=L,spines=S,h=H[,g=G]
 * torus:D1xD2x..[,hosts=H]              torus (a dimension of 2 is one link), H hosts per switch (1)
 * mesh:D1xD2x..[,hosts=H]
 * random:switches=N,degree=D[,hosts=H,seed=S]   random regular graph (Jellyfish)
 * paper:NAME                            a paper's test bed: ib-ar-c1, ib-ar-c2, qadaptive-1056, ...
 * file:PATH                             an ibnetdiscover / ibsim net file
 * </pre>
 */
public final class Topologies {
    /** Opens a topology file; the caller owns the I/O (this library only parses Readers). */
    @FunctionalInterface
    public interface FileOpener {
        Reader open(String path) throws IOException;
    }

    private Topologies() {
    }

    /**
     * Builds a generated fabric.
     *
     * @throws IllegalArgumentException for a malformed spec, naming what is wrong
     */
    public static Fabric generate(String text) {
        TopologySpec spec = TopologySpec.parse(text);
        switch (spec.kind()) {
            case "fat-tree":
                return FatTrees.kAryNTree(spec);
            case "xgft":
                return FatTrees.xgft(spec);
            case "rlft":
                return FatTrees.rlft(spec);
            case "dragonfly":
                return Dragonflies.dragonfly(spec);
            case "dragonfly-plus":
                return Dragonflies.dragonflyPlus(spec);
            case "torus":
                return Tori.torus(spec, false);
            case "mesh":
                return Tori.torus(spec, true);
            case "random":
                return RandomRegular.build(spec);
            case "paper":
                return PaperTopologies.build(spec);
            case "file":
                throw new IllegalArgumentException("file: specs are read with Topologies.load, which opens the file");
            default:
                throw new IllegalArgumentException("unknown topology kind '" + spec.kind() + "'; known kinds: fat-tree, "
                        + "xgft, rlft, dragonfly, dragonfly-plus, torus, mesh, random, paper, file");
        }
    }

    /**
     * The parameter of a generator spec that sets how many hosts each switch gets, and of which
     * switches ({@code p} of a dragonfly's routers, {@code hosts} of a torus's switches), or null
     * for a kind whose every fabric has hosts (fat trees, papers' systems) or a file.
     */
    public static HostsParameter hostsParameter(String text) {
        return switch (TopologySpec.parse(text).kind()) {
            case "dragonfly" -> new HostsParameter("p", "router");
            case "dragonfly-plus" -> new HostsParameter("p", "leaf");
            case "rlft" -> new HostsParameter("hosts", "leaf");
            case "torus", "mesh", "random" -> new HostsParameter("hosts", "switch");
            default -> null;
        };
    }

    /** A generator's parameter {@code name}: the number of hosts on each switch of kind {@code on}. */
    public record HostsParameter(String name, String on) {
    }

    /**
     * Builds a fabric from any spec, reading {@code file:PATH} through {@code opener}.
     *
     * @throws IOException a {@link org.fabriclab.routing.format.FormatException} for a malformed file
     */
    public static Fabric load(String text, FileOpener opener) throws IOException {
        TopologySpec spec = TopologySpec.parse(text);
        if (spec.kind().equals("file")) {
            String path = spec.positional();
            if (path == null || path.isEmpty()) {
                throw new IllegalArgumentException("file: give a path, e.g. file:fabric.net");
            }
            try (Reader r = opener.open(path)) {
                return NetFile.read(r, path);
            }
        }
        return generate(text);
    }
}
