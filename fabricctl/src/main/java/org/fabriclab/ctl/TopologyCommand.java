package org.fabriclab.ctl;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.fabriclab.cli.NamedValues;
import org.fabriclab.cli.TopologyArg;
import org.fabriclab.proto.v1.GetTopologyRequest;
import org.fabriclab.proto.v1.Topology;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.format.Json;
import org.fabriclab.routing.format.NetFile;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code fabricctl topology}: prints a fabric, generated or read, as a net file or a summary. */
@Command(name = "topology", mixinStandardHelpOptions = true,
        description = "Print a fabric as an ibsim/ibnetdiscover net file, or summarise it.")
final class TopologyCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Offline output formats. */
    static final class Formats extends NamedValues<String> {
        Formats() {
            super("topology format", table("net", "net", "summary", "summary"));
        }
    }

    @Option(names = "--topology", paramLabel = "SPEC", converter = TopologyArg.AnyFabric.class,
            description = "Topology spec, e.g. fat-tree:k=4,levels=3, torus:4x4,hosts=2 (hosts=0: switches alone), file:fabric.net; "
                    + "without it, the daemon's topology")
    TopologyArg topology;

    /** Without {@code --topology}: {@code --server}, {@code --timeout}. */
    @Mixin
    Daemon daemon;

    @Option(names = "--json", description = "With the daemon: print nodes and links as one JSON object")
    boolean json;

    @Option(names = "--format", defaultValue = "net", paramLabel = "net|summary", converter = Formats.class,
            description = "net (ibsim accepts it) or summary (JSON counts). Default: ${DEFAULT-VALUE}")
    String format;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write to FILE instead of standard output")
    Path output;

    @Override
    public Integer call() throws IOException {
        if (topology == null) {
            return fromDaemon();
        }
        Fabric f = topology.fabric();
        String text;
        switch (format) {
            case "net" -> {
                StringWriter w = new StringWriter();
                NetFile.write(f, w);
                text = w.toString();
            }
            case "summary" -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("topology", f.kind());
                m.put("switches", f.switchCount());
                m.put("hosts", f.caCount());
                m.put("endpoints", f.endpointCount());
                m.put("links", f.linkCount());
                text = Json.write(m) + "\n";
            }
            default -> throw new IllegalStateException("--format " + format + " is checked while parsing");
        }
        if (output == null) {
            spec.commandLine().getOut().print(text);
            spec.commandLine().getOut().flush();
        } else {
            try (Writer w = Files.newBufferedWriter(output, StandardCharsets.UTF_8)) {
                w.write(text);
            }
        }
        return 0;
    }

    private int fromDaemon() {
        Topology t = daemon.call(a -> a.getTopology(GetTopologyRequest.getDefaultInstance()));
        Map<String, Object> m = new LinkedHashMap<>();
        List<Object> nodes = new ArrayList<>();
        t.getNodesList().forEach(n -> {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("name", n.getName());
            x.put("guid", String.format("0x%016x", n.getGuid()));
            x.put("type", n.getSwitch() ? "switch" : "ca");
            x.put("ports", n.getPorts());
            x.put("lid", n.getLid());
            x.put("endpoint", n.getEndpoint());
            nodes.add(x);
        });
        List<Object> links = new ArrayList<>();
        t.getLinksList().forEach(l -> links.add(l.getNode() + "[" + l.getPort() + "]-" + l.getPeer() + "[" + l.getPeerPort() + "]"));
        m.put("nodes", nodes);
        m.put("links", links);
        if (json) {
            spec.commandLine().getOut().println(Json.write(m));
        } else {
            PrintWriter out = spec.commandLine().getOut();
            t.getNodesList().forEach(n -> out.printf("%-8s %-24s lid %-5d %s%n", n.getSwitch() ? "switch" : "ca", n.getName(), n.getLid(), n.getEndpoint()));
            links.forEach(l -> out.println("link " + l));
        }
        spec.commandLine().getOut().flush();
        return 0;
    }
}
