package org.fabriclab.ctl;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.fabriclab.cli.JsonOption;
import org.fabriclab.cli.SeedOption;
import org.fabriclab.routing.format.Json;
import org.fabriclab.routing.torus.TorusStudy;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code fabricctl torus-study}: the Angara paper's Figure 5 on random tori: each engine's
 * edge-forwarding index against BFS's, grouped as the paper groups it, and each engine's routing
 * time against the number of nodes.
 */
@Command(name = "torus-study", mixinStandardHelpOptions = true,
        description = "Route random tori with the Angara engines and compare them with BFS (the paper's Figure 5).")
final class TorusStudyCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--dimensions", required = true, paramLabel = "N", description = "2, 3 or 4 (1 works too)")
    int dimensions;

    @Option(names = "--systems", defaultValue = "10", paramLabel = "K",
            description = "Distinct tori to take, in a seeded random order; all there are if fewer (the paper: 49 2D, 339 3D, 1173 4D). Default: ${DEFAULT-VALUE}")
    int systems;

    @Option(names = "--min-size", defaultValue = "2", description = "Smallest dimension size. Default: ${DEFAULT-VALUE}")
    int min;

    @Option(names = "--max-size", defaultValue = "8", description = "Largest dimension size. Default: ${DEFAULT-VALUE}")
    int max;

    @Option(names = "--max-nodes", defaultValue = "4096", paramLabel = "M",
            description = "Leave out tori with more nodes (the genetic engine is slow on large ones). Default: ${DEFAULT-VALUE}")
    int maxNodes;

    @Option(names = "--engines", defaultValue = "torus-bfs,torus-sssp,torus-genetic", split = ",",
            description = "Engines, torus-bfs first (the reference). Default: ${DEFAULT-VALUE}")
    List<String> engines;

    /** Draws the systems and seeds the genetic engine. */
    @Mixin
    SeedOption seed;

    @Mixin
    JsonOption json;

    @Override
    public Integer call() {
        TorusStudy.Result r = TorusStudy.run(dimensions, systems, min, max, maxNodes, engines, seed.seed);
        PrintWriter out = spec.commandLine().getOut();
        if (json.json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("dimensions", r.dimensions());
            List<Object> rows = new ArrayList<>();
            for (TorusStudy.Sample s : r.systems()) {
                Map<String, Object> x = new LinkedHashMap<>();
                x.put("dims", s.size());
                x.put("nodes", s.nodes());
                x.put("edgeForwardingIndex", s.efi());
                x.put("sigma4", s.sigma4());
                x.put("routingMillis", s.millis());
                rows.add(x);
            }
            m.put("systems", rows);
            List<Object> groups = new ArrayList<>();
            for (TorusStudy.Group g : r.groups()) {
                Map<String, Object> x = new LinkedHashMap<>();
                x.put("engine", g.engine());
                x.put("relation", g.relation());
                x.put("systems", g.systems());
                x.put("efiRatio", g.efiRatio());
                groups.add(x);
            }
            m.put("groups", groups);
            List<Object> runtimes = new ArrayList<>();
            for (TorusStudy.Runtime x : r.runtimes()) {
                Map<String, Object> y = new LinkedHashMap<>();
                y.put("engine", x.engine());
                y.put("fromNodes", x.fromNodes());
                y.put("toNodes", x.toNodes());
                y.put("systems", x.systems());
                y.put("medianMillis", x.medianMillis());
                y.put("maxMillis", x.maxMillis());
                runtimes.add(y);
            }
            m.put("runtimes", runtimes);
            out.println(Json.write(m));
        } else {
            out.printf("%dD tori, %d systems%n", r.dimensions(), r.systems().size());
            for (TorusStudy.Sample s : r.systems()) {
                StringBuilder sb = new StringBuilder(String.format("%-12s %5d nodes", s.size(), s.nodes()));
                s.efi().forEach((e, v) -> sb.append(String.format("  %s %d (%.0f ms)", e, v, s.millis().get(e))));
                out.println(sb);
            }
            out.println("edge-forwarding index against torus-bfs (Figure 5a-c):");
            for (TorusStudy.Group g : r.groups()) {
                out.printf("  %-14s %-8s %4d systems  ratio %s%n", g.engine(), g.relation(), g.systems(),
                        Double.isNaN(g.efiRatio()) ? "-" : String.format("%.3f", g.efiRatio()));
            }
            out.println("routing time against nodes, ms (Figure 5d-f):");
            for (TorusStudy.Runtime x : r.runtimes()) {
                out.printf("  %-14s %4d-%-4d nodes %4d systems  median %.0f  max %.0f%n", x.engine(), x.fromNodes(), x.toNodes(), x.systems(),
                        x.medianMillis(), x.maxMillis());
            }
        }
        out.flush();
        return 0;
    }
}
