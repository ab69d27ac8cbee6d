package org.fabriclab.emulator.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.fabriclab.agent.core.CongestionControl;
import org.fabriclab.cli.Gbps;
import org.fabriclab.cli.DeprecatedSpelling;
import org.fabriclab.cli.JsonOption;
import org.fabriclab.cli.NamedValues;
import org.fabriclab.cli.SeedOption;
import org.fabriclab.cli.TimeDilation;
import org.fabriclab.cli.TimeDilationOption;
import org.fabriclab.cli.TimeSpan;
import org.fabriclab.emulator.scenario.Scenarios;
import org.fabriclab.emulator.scenario.ThroughputPlot;
import org.fabriclab.emulator.sim.PortShares;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.format.Json;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code emulator scenario}: one of the adaptive-routing paper's experiments, simulated or live. */
@Command(name = "scenario", mixinStandardHelpOptions = true,
        description = "Run an experiment of the InfiniBand adaptive-routing paper (ib-ar-c1-s1..s3, ib-ar-c2-s1..s6) with DR or AR.")
public final class ScenarioCommand implements Callable<Integer> {
    /** The paper's names for static and adaptive routing, as {@code --routing} took them. */
    static final class DrAr extends NamedValues<OnOff.Setting> {
        DrAr() {
            super("routing mode", table("dr", OnOff.Setting.OFF, "ar", OnOff.Setting.ON));
        }
    }

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NAME", description = "The scenario; 'list' names them")
    String name;

    @Option(names = "--adaptive", defaultValue = "on", converter = OnOff.class, paramLabel = "on|off",
            description = "on: adaptive routing (the paper's AR); off: the static LFT (DR). Default: ${DEFAULT-VALUE}")
    OnOff.Setting adaptive;

    @Option(names = "--sim", description = "In virtual time (the default)")
    boolean sim;

    @Option(names = "--live", description = "On the live emulated fabric in this JVM, in wall-clock time (use slow links: --link-gbps 1)")
    boolean live;

    @Option(names = "--time-dilation", defaultValue = "1", paramLabel = "D|auto", converter = TimeDilationOption.Converter.class,
            description = "With --live: run D times slower than real time, phases and rates in model time, so fast links are emulated "
                    + "faithfully (e.g. --link-gbps 100 --time-dilation 100); auto: follow the fidelity monitor. Default: ${DEFAULT-VALUE}")
    TimeDilation timeDilation;

    @Option(names = "--phase", paramLabel = "TIME", converter = TimeSpan.BareNanos.class,
            description = "Length of each phase (ns, us, ms, s): virtual time simulated, wall-clock time live. Default: 200us simulated, 2s live")
    TimeSpan phase;

    @Option(names = "--warmup", defaultValue = "2s", paramLabel = "TIME", converter = TimeSpan.Converter.class,
            description = "With --live: every sender runs this long first, unmeasured, while the JIT compiles the forwarding path. "
                    + "Default: ${DEFAULT-VALUE}")
    TimeSpan warmup;

    @Option(names = "--link-gbps", paramLabel = "GBPS", converter = Gbps.class,
            description = "Link rate. Default: 200 simulated (the paper's HDR links), 1 live (what two cores emulate faithfully)")
    Double linkGbps;

    /** The hosts' congestion control: does it undo AR's parking lot and victim flow? */
    @Mixin
    CcOptions cc;

    @Mixin
    SeedOption seed;

    @Option(names = "--svg", paramLabel = "FILE", description = "Also plot each flow's throughput over time into FILE (SVG)")
    Path svg;

    @Mixin
    JsonOption json;

    /** The old spelling of {@code --adaptive} here (old spellings are fields apart: picocli applies defaults after parsing). */
    @DeprecatedSpelling(use = "--adaptive on|off (ar is on, dr off)")
    @Option(names = "--routing", hidden = true, paramLabel = "dr|ar", converter = DrAr.class)
    OnOff.Setting routing;

    /** The old spelling of a live {@code --phase}, in milliseconds without a unit. */
    @DeprecatedSpelling(use = "--phase TIME")
    @Option(names = "--phase-ms", hidden = true, paramLabel = "MS")
    void phaseMillis(long ms) {
        phase = TimeSpan.ofNanos(ms * 1_000_000);
    }

    /** The old spelling of {@code --warmup}, in milliseconds without a unit. */
    @DeprecatedSpelling(use = "--warmup TIME")
    @Option(names = "--warmup-ms", hidden = true, paramLabel = "MS")
    Long warmupMillis;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (name.equals("list")) {
            Scenarios.all().forEach(x -> out.printf("%-12s %s%n", x.name(), x.paper()));
            out.flush();
            return 0;
        }
        if (live && sim) {
            throw new IllegalArgumentException("give --live or --sim, not both");
        }
        if (phase != null) {
            phase.positive("--phase");
            if (live && phase.millis() < 1) { // the live runner counts phases in whole milliseconds
                throw new IllegalArgumentException("--phase " + phase.text() + " is shorter than a live phase's millisecond; give 1ms or more");
            }
        }
        boolean ar = (routing != null ? routing : adaptive).on();
        double gbps = linkGbps != null ? linkGbps : live ? 1 : 200;
        CongestionControl.Settings ccSettings = cc.settings(gbps);
        long warmupMs = warmupMillis != null ? warmupMillis : warmup.millis();
        Scenarios.Result r;
        try {
            Scenarios.Scenario scenario = Scenarios.byName(name);
            r = live ? Scenarios.live(scenario, ar, gbps, phase == null ? 2000 : phase.millis(), warmupMs, timeDilation, ccSettings)
                    : Scenarios.simulate(scenario, ar, gbps, phase == null ? 200_000 : phase.nanos(), seed.seed, ccSettings);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        } catch (RoutingException e) {
            err.println("emulator scenario: routing failed: " + e.getMessage());
            err.flush();
            return 1;
        }
        if (svg != null) {
            Files.writeString(svg, ThroughputPlot.svg(r));
        }
        if (json.json) {
            out.println(Json.write(report(r)));
        } else {
            print(out, r);
        }
        out.flush();
        return 0;
    }

    /** The report as the command-line contract and the baseline reports have it. */
    static Map<String, Object> report(Scenarios.Result r) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("scenario", r.scenario());
        out.put("routing", r.routing());
        out.put("clock", r.live() ? "live" : "simulated");
        out.put("linkGbps", r.linkGbps());
        if (r.cc() != null) {
            out.put("cc", r.cc().name());
            out.put("ccParams", r.cc().values());
        }
        List<Object> phases = new ArrayList<>();
        for (Scenarios.PhaseResult p : r.phases()) {
            Map<String, Object> ph = new LinkedHashMap<>();
            ph.put("startSeconds", p.startSeconds());
            ph.put("endSeconds", p.endSeconds());
            List<Object> flows = new ArrayList<>();
            for (Scenarios.FlowResult fl : p.flows()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("src", fl.src());
                m.put("dst", fl.dst());
                m.put("throughputGbps", fl.throughputGbps());
                m.put("share", fl.share());
                flows.add(m);
            }
            ph.put("flows", flows);
            ph.put("jainIndex", p.jainIndex());
            ph.put("coefficientOfVariation", p.coefficientOfVariation());
            ph.put("maxMinRatio", p.maxMinRatio());
            List<Object> ports = new ArrayList<>();
            for (PortShares.Output o : p.congestedPorts()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("node", o.node());
                m.put("port", o.port());
                m.put("to", o.to());
                m.put("utilisation", o.utilisation());
                m.put("jainIndex", o.jainIndex());
                List<Object> inputs = new ArrayList<>();
                for (PortShares.Input in : o.inputs()) {
                    Map<String, Object> x = new LinkedHashMap<>();
                    x.put("port", in.port());
                    x.put("from", in.from());
                    x.put("share", in.share());
                    inputs.add(x);
                }
                m.put("inputs", inputs);
                ports.add(m);
            }
            ph.put("congestedPorts", ports);
            phases.add(ph);
        }
        out.put("phases", phases);
        return out;
    }

    /** The readable report: each phase's flows and congested ports. */
    private static void print(PrintWriter out, Scenarios.Result r) {
        out.printf(Locale.ROOT, "%s, %s, %.3g Gbps links, %s%s%n", r.scenario(), r.routing().toUpperCase(Locale.ROOT), r.linkGbps(),
                r.live() ? "live" : "simulated", r.cc() == null ? "" : ", hosts running " + r.cc().name());
        double scale = r.live() ? 1 : 1e6; // wall-clock seconds live, microseconds of virtual time simulated
        for (Scenarios.PhaseResult p : r.phases()) {
            out.printf(Locale.ROOT, "phase %.0f-%.0f %s (Jain %.3f, CoV %.3f, max/min %.2f):%n", p.startSeconds() * scale,
                    p.endSeconds() * scale, r.live() ? "s" : "us", p.jainIndex(), p.coefficientOfVariation(), p.maxMinRatio());
            for (Scenarios.FlowResult fl : p.flows()) {
                out.printf(Locale.ROOT, "  %4s -> %-4s %7.1f Gbps  %.3f of a link%n", fl.src(), fl.dst(), fl.throughputGbps(), fl.share());
            }
            for (PortShares.Output o : p.congestedPorts()) {
                out.printf(Locale.ROOT, "  congested %s port %d > %s (%.2f busy, inputs' Jain %.3f):%s%n", o.node(), o.port(), o.to(),
                        o.utilisation(), o.jainIndex(), o.inputs().stream()
                                .map(in -> String.format(Locale.ROOT, " %s %.2f", in.from(), in.share())).collect(Collectors.joining(",")));
            }
        }
    }
}
