package org.fabriclab.emulator.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fabriclab.agent.core.ClosedLoop;
import org.fabriclab.agent.core.SourceQueue;
import org.fabriclab.agent.core.TrafficPlan;
import org.fabriclab.emulator.sim.Simulation;
import org.fabriclab.routing.dragonfly.RoutingMode;
import org.fabriclab.routing.fabric.Fabric;
import picocli.CommandLine.Option;

/**
 * {@code --job}, repeatable: the jobs of {@code emulator sim}, {@code emulator sweep}, {@code
 * emulator up} and {@code fabric-manager --emulate}, one parser ({@link JobSpec#parse}) and one
 * placement ({@link JobSpec#place}) for all four, so a spec means the same in the simulator and
 * on the live plane. At most {@link #MAX_JOBS}: each job is a label value of the live plane's
 * {@code fabric_job_*} metrics.
 */
public final class JobOptions {
    /** The most jobs a command takes (the metrics' {@code job} label stays bounded). */
    public static final int MAX_JOBS = TrafficPlan.MAX_JOBS;

    @Option(names = "--job", paramLabel = "name=N,hosts=H[,placement=P][,pattern=T][,load=X][,mode=M][,message=B]",
            description = "Instead of the pattern every host sends by, repeatable (at most " + MAX_JOBS + "): a job of H hosts, placed "
                    + "in the order given on the hosts the earlier jobs left: placement contiguous (the lowest free hosts: packed "
                    + "switches and groups), random (seeded by --seed; fabric-manager: --job-seed) or interleaved (round-robin over the Dragonfly groups). It sends "
                    + "among its own ranks by pattern " + JobSpec.PATTERNS + " (closed-loop, no load=: ping-pong, hosts=2, rank 0 "
                    + "sends a message to rank 1, which answers when the whole message arrived; barrier, the dissemination barrier; broadcast, a "
                    + "binomial tree from rank 0, the next when every rank has the message; alltoall, MPI's pairwise exchange, n - 1 steps; allreduce, the ring's 2 (n - 1) steps; halo3d-loop, ember's Halo3D on halo3d's grid, a phase per side, x, y, z, each to and from the neighbours along it; sweep3d, ember's Sweep3D, wavefronts from the four corners of a 2D grid, "
                    + ClosedLoop.SWEEP3D_BLOCKS + " blocks each, message= a block's face; iterations back to back, the report gives the iterations and their time; live: fabric_job_iterations_total); at load X of each host's link rate (default: --load; "
                    + "live: --traffic-gbps over the link rate; emulator sweep: each point's load); every packet asking for routing "
                    + "mode M (default --routing-mode; app-aware: each host chooses ADAPTIVE_3 or the pattern's default, ADAPTIVE_1 "
                    + "for all-to-all and ADAPTIVE_0 for the others, per message from its NIC counters, De Sensi et al.'s "
                    + "algorithm); in messages of B bytes (4096, 64KiB, 1MiB; default one packet), a message's packets created "
                    + "together and sent as a burst to one rank. Hosts in no job send nothing. Default: none")
    List<String> texts = new ArrayList<>();

    /** True if a {@code --job} was given. */
    public boolean given() {
        return !texts.isEmpty();
    }

    /**
     * Every {@code --job} parsed, in the order given.
     *
     * @throws IllegalArgumentException one line: the spec and what is wrong, or more than {@link #MAX_JOBS} jobs
     */
    List<JobSpec> specs() {
        if (texts.size() > MAX_JOBS) {
            throw new IllegalArgumentException("Invalid value for option '--job': " + texts.size() + " jobs; give at most " + MAX_JOBS);
        }
        List<JobSpec> specs = new ArrayList<>();
        for (String text : texts) {
            specs.add(JobSpec.parse(text, specs.size()));
        }
        return specs;
    }

    /**
     * Every job placed on {@code fabric} ({@link JobSpec#place}): a job without {@code load=} at
     * {@code load}, without {@code mode=} asking for {@code mode}; empty without {@code --job}.
     *
     * @throws IllegalArgumentException one line naming the spec or the job and why
     */
    public List<Simulation.Job> place(Fabric fabric, long seed, double load, RoutingMode mode, int payloadBytes, int sourceQueuePackets) {
        List<JobSpec> specs = specs();
        return specs.isEmpty() ? List.of() : JobSpec.place(specs, fabric, seed, load, mode, payloadBytes, sourceQueuePackets);
    }

    /**
     * The default seed of the live plane's random placement ({@code emulator up --seed}, {@code
     * fabric-manager --job-seed}): the simulator's default {@code --seed}, so that a job placed at
     * random lands on the same hosts in both unless told otherwise.
     */
    public static final long LIVE_SEED = 1;

    /**
     * The jobs of a live fabric ({@code emulator up}, {@code fabric-manager --emulate}): placed on
     * {@code fabric} as the simulator places them (random placement seeded by {@code seed}), a job
     * without {@code load=} at {@code --traffic-gbps} over {@code linkGbps}, without {@code mode=}
     * asking for {@code --routing-mode}, messages of {@code payloadBytes} packets in the hosts'
     * source queue of {@code --source-queue}; closed-loop jobs as the simulator runs them; empty without {@code --job}.
     *
     * @throws IllegalArgumentException one line: a bad spec, jobs that do not fit, or {@code --traffic} given too
     */
    public List<Simulation.Job> placeLive(Fabric fabric, TrafficOptions traffic, double linkGbps, int payloadBytes, long seed) {
        if (!given()) {
            return List.of();
        }
        if (traffic.name != null) {
            throw new IllegalArgumentException("--traffic is every host's traffic; with --job each job's is its pattern= key: give one");
        }
        double load = traffic.gbps / linkGbps;
        // only an open-loop job without load= runs at --traffic-gbps; a closed loop offers what its loop lets through
        boolean used = specs().stream().anyMatch(s -> s.loop() == null && s.load() == null);
        if (used && !(load > 0 && load <= 1)) {
            throw new IllegalArgumentException("Invalid value for option '--job': a job without load= runs at --traffic-gbps "
                    + traffic.gbps + " of the " + linkGbps + " Gbps links; give load= in (0, 1] or a --traffic-gbps up to the link rate");
        }
        return place(fabric, seed, load, traffic.routingMode, payloadBytes, traffic.sourceQueuePackets());
    }

    /**
     * Each job's report as the JSON has it: what was asked (placement, pattern, mode, load,
     * message) and what was measured; latency and message times null where none was measured.
     */
    List<Map<String, Object>> reports(Simulation.Config config, Simulation.Report r) {
        List<JobSpec> specs = specs();
        List<Map<String, Object>> out = new ArrayList<>();
        for (int j = 0; j < specs.size(); j++) {
            JobSpec s = specs.get(j);
            Simulation.Job job = config.jobs().get(j);
            Simulation.JobReport jr = r.jobs().get(j);
            boolean measured = jr.packetsDelivered() > 0;
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", jr.name());
            m.put("hosts", jr.hosts());
            m.put("placement", s.placement().cliName());
            m.put("pattern", s.patternName());
            m.put("routingMode", job.appAware() ? JobSpec.APP_AWARE : job.mode().name());
            m.put("load", job.loop() != null ? null : job.load()); // a closed loop has none: it sends on receipt
            m.put("messageBytes", (long) job.messagePackets() * config.payloadBytes());
            m.put("messagePackets", job.messagePackets());
            m.put("offeredLoad", jr.offeredLoad());
            m.put("throughput", jr.throughput());
            m.put("latencyMeanNs", measured ? jr.latencyMeanNs() : null);
            m.put("latencyP99Ns", measured ? jr.latencyP99Ns() : null);
            m.put("packetsDelivered", jr.packetsDelivered());
            m.put("nonMinimalShare", Double.isNaN(jr.nonMinimalShare()) ? null : jr.nonMinimalShare());
            m.put("messagesCompleted", jr.messagesCompleted());
            m.put("messageMeanNs", jr.messagesCompleted() > 0 ? jr.messageMeanNs() : null);
            m.put("messageP99Ns", jr.messagesCompleted() > 0 ? jr.messageP99Ns() : null);
            m.put("networkLatencyMeanNs", measured ? jr.networkLatencyMeanNs() : null);
            m.put("stallNsPerFlit", Double.isNaN(jr.stallNsPerFlit()) ? null : jr.stallNsPerFlit());
            m.put("modelMessageNs", Double.isNaN(jr.modelMessageNs()) ? null : jr.modelMessageNs());
            if (job.appAware()) {
                m.put("adaptiveShare", Double.isNaN(jr.adaptiveShare()) ? null : jr.adaptiveShare());
            }
            if (job.loop() != null) { // closed-loop: the microbenchmark's figure, the time per iteration
                m.put("iterations", jr.iterations());
                m.put("iterationMeanNs", jr.iterations() > 0 ? jr.iterationMeanNs() : null);
                m.put("iterationP99Ns", jr.iterations() > 0 ? jr.iterationP99Ns() : null);
            }
            if (jr.messagesLost() > 0) { // only when it happened: the message times leave those messages out
                m.put("messagesLost", jr.messagesLost());
            }
            out.add(m);
        }
        return out;
    }
}
