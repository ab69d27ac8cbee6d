package org.fabriclab.ctl;

import java.io.IOException;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.format.NetFile;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code fabricctl topology}: prints a fabric, generated or read, as a net file or a summary. */
@Command(name = "topology", mixinStandardHelpOptions = true,
        description = "Print a fabric as an ibsim/ibnetdiscover net file, or summarise it.")
final class TopologyCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--topology", required = true, paramLabel = "SPEC",
            description = "Topology spec, e.g. fat-tree:k=4,levels=3, torus:4x4,hosts=2, file:fabric.net")
    String topology;

    @Option(names = "--format", defaultValue = "net", paramLabel = "net|summary",
            description = "net (ibsim accepts it) or summary (JSON counts). Default: ${DEFAULT-VALUE}")
    String format;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write to FILE instead of standard output")
    Path output;

    @Override
    public Integer call() throws IOException {
        Fabric f = Fabrics.load(topology);
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
            default -> throw new IllegalArgumentException("unknown --format '" + format + "'; use net or summary");
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
}
