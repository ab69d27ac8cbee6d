package org.fabriclab.ctl;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.fabriclab.routing.engine.EngineGuarantees;
import org.fabriclab.routing.format.Json;
import org.fabriclab.routing.registry.RoutingEngines;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code fabricctl engines}: the routing engines this build has, with what each promises and the parameters each reads (with their defaults). */
@Command(name = "engines", mixinStandardHelpOptions = true, description = "List the routing engines, their guarantees and their parameters with defaults.")
final class EnginesCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--json", description = "Print the engines as one JSON array")
    boolean json;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            List<Map<String, Object>> engines = new ArrayList<>();
            for (RoutingEngines.Info i : RoutingEngines.all()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("name", i.name());
                m.put("description", i.description());
                m.put("guarantees", guarantees(i.guarantees()));
                m.put("parameters", new LinkedHashMap<>(i.factory().get().parameters()));
                engines.add(m);
            }
            out.println(Json.write(engines));
            return 0;
        }
        for (RoutingEngines.Info i : RoutingEngines.all()) {
            out.printf("%-15s %s [%s]%n", i.name(), i.description(), i.guarantees().describe());
            Map<String, String> params = i.factory().get().parameters();
            if (!params.isEmpty()) {
                StringBuilder sb = new StringBuilder();
                params.forEach((name, value) -> sb.append(' ').append(name).append('=').append(value));
                out.printf("%-15s --engine-param (defaults):%s%n", "", sb);
            }
        }
        return 0;
    }

    /** An engine's guarantees as a report shows them: {@code deadlockFree}, {@code lanes}, {@code sourceRoutes}. */
    static Map<String, Object> guarantees(EngineGuarantees g) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("deadlockFree", g.deadlockFree());
        m.put("lanes", g.lanes());
        m.put("sourceRoutes", g.sourceRoutes());
        return m;
    }
}
