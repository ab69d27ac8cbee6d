package org.fabriclab.ctl;

import java.util.concurrent.Callable;
import org.fabriclab.routing.registry.RoutingEngines;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code fabricctl engines}: the routing engines this build has. */
@Command(name = "engines", mixinStandardHelpOptions = true, description = "List the routing engines.")
final class EnginesCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        for (RoutingEngines.Info i : RoutingEngines.all()) {
            spec.commandLine().getOut().printf("%-13s %s%n", i.name(), i.description());
        }
        return 0;
    }
}
