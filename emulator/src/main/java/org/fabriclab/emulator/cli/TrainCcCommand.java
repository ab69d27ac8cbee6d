package org.fabriclab.emulator.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.fabriclab.agent.core.RlCcPolicy;
import org.fabriclab.cli.SeedOption;
import org.fabriclab.cli.TimeSpan;
import org.fabriclab.emulator.train.CcTraining;
import org.fabriclab.routing.engine.RoutingException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code emulator train-cc}: an RL-CC tree policy trained on the simulator's many-to-one ({@link CcTraining}). */
@Command(name = "train-cc", mixinStandardHelpOptions = true,
        description = "Train an RL-CC policy on simulated many-to-one runs (a teacher rule found by a seeded cross-entropy search "
                + "on the RL-CC reward, distilled into boosted trees) and write it as a policy file for --cc rl-cc.")
public final class TrainCcCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--output", required = true, paramLabel = "FILE", description = "The policy file to write")
    Path output;

    @Mixin
    SeedOption seed;

    @Option(names = "--iterations", defaultValue = "24", paramLabel = "N",
            description = "Cross-entropy iterations of the teacher's search (1..1000). Default: ${DEFAULT-VALUE}")
    int iterations;

    @Option(names = "--population", defaultValue = "16", paramLabel = "N",
            description = "Teachers tried per iteration (2..1000). Default: ${DEFAULT-VALUE}")
    int population;

    @Option(names = "--flows", defaultValue = "2,8,16", split = ",", paramLabel = "N,..",
            description = "The many-to-one episodes, by their flows (each 1.." + MAX_FLOWS + ", at most 8 episodes). Default: ${DEFAULT-VALUE}")
    List<Integer> flows;

    @Option(names = "--long-short-episodes", split = ",", paramLabel = "N,..",
            description = "Long-short episodes too, by their short flows (each 1.." + (MAX_FLOWS - 1) + "): a long flow from host 1 to "
                    + "host 0, and N flows of 64 KiB joining it at a quarter of the episode (as sim --long-short). Default: none")
    List<Integer> longShort = new ArrayList<>();

    @Option(names = "--episode", defaultValue = "1ms", paramLabel = "TIME", converter = TimeSpan.Converter.class,
            description = "Virtual time of each episode (10us..100ms). Default: ${DEFAULT-VALUE}")
    TimeSpan episode;

    @Option(names = "--reward-target", defaultValue = "1.5", paramLabel = "X",
            description = "The reward's target for rtt_ratio * sqrt(rate_frac) (above 1, at most 100). Default: ${DEFAULT-VALUE}")
    double rewardTarget;

    @Option(names = "--trees", defaultValue = "25", paramLabel = "N",
            description = "The policy's trees (1..150; trees x (depth + 1) at most " + RlCcPolicy.MAX_OPERATIONS + "). Default: ${DEFAULT-VALUE}")
    int trees;

    @Option(names = "--depth", defaultValue = "4", paramLabel = "N",
            description = "The most comparisons on a tree's path (1..10). Default: ${DEFAULT-VALUE}")
    int depth;

    @Option(names = "--dagger", defaultValue = "3", paramLabel = "N",
            description = "Rounds of DAgger after the first fit: the student's own runs labelled by the teacher (0..10). Default: ${DEFAULT-VALUE}")
    int dagger;

    @Option(names = "--threads", paramLabel = "N",
            description = "Simulations side by side (1..64; the policy does not depend on it). Default: the processors, at most 2")
    Integer threads;

    /** The episodes' switch has 32 hosts: one receives. */
    static final int MAX_FLOWS = 31;

    @Override
    public Integer call() throws RoutingException {
        check();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        int t = threads != null ? threads : Math.min(2, Runtime.getRuntime().availableProcessors());
        CcTraining.Options o = new CcTraining.Options(seed.seed, iterations, population, flows, longShort, episode.nanos(), rewardTarget, trees, depth,
                dagger, t);
        CcTraining.Result r = CcTraining.train(o, line -> {
            err.println(line);
            err.flush();
        });
        RlCcPolicy policy = RlCcPolicy.parse(output.toString(), r.policy()); // what --cc rl-cc will read: refused here, not there
        try {
            Files.writeString(output, r.policy(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            err.println("emulator train-cc: cannot write " + output + " (" + e.getMessage() + ")");
            err.flush();
            return 1;
        }
        out.printf(Locale.ROOT, "wrote %s: %d trees, at most %d operations a decision; mean reward per decision: teacher %.5f, policy %.5f;"
                + " RMSE to the teacher %.5f over %d samples%n", output, policy.trees(), policy.cost(), r.teacherReward(), r.studentReward(),
                r.rmse(), r.samples());
        out.flush();
        return 0;
    }

    /** @throws IllegalArgumentException one line naming the option and its range */
    private void check() {
        range("--iterations", iterations, 1, 1000);
        range("--population", population, 2, 1000);
        range("--trees", trees, 1, 150);
        range("--depth", depth, 1, 10);
        range("--dagger", dagger, 0, 10);
        if (threads != null) {
            range("--threads", threads, 1, 64);
        }
        if (flows.isEmpty() || flows.size() > 8) {
            throw new IllegalArgumentException("Invalid value for option '--flows': give 1 to 8 episodes, not " + flows.size());
        }
        for (int n : flows) {
            range("--flows", n, 1, MAX_FLOWS);
        }
        if (longShort.size() > 8) {
            throw new IllegalArgumentException("Invalid value for option '--long-short-episodes': give at most 8 episodes, not "
                    + longShort.size());
        }
        for (int n : longShort) {
            range("--long-short-episodes", n, 1, MAX_FLOWS - 1);
        }
        if (episode.nanos() < 10_000 || episode.nanos() > 100_000_000) {
            throw new IllegalArgumentException("Invalid value for option '--episode': '" + episode.text() + "' is outside 10us..100ms");
        }
        if (!(rewardTarget > 1 && rewardTarget <= 100)) {
            throw new IllegalArgumentException("Invalid value for option '--reward-target': " + rewardTarget + " is not in (1, 100]: "
                    + "rtt_ratio is at least 1");
        }
        if (trees * (depth + 1) > RlCcPolicy.MAX_OPERATIONS) {
            throw new IllegalArgumentException("--trees " + trees + " of --depth " + depth + " may cost " + trees * (depth + 1)
                    + " operations a decision, more than the NIC's budget of " + RlCcPolicy.MAX_OPERATIONS);
        }
        SimOptions.requireWritable("--output", output);
    }

    private static void range(String option, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException("Invalid value for option '" + option + "': " + value + " is outside " + min + ".." + max);
        }
    }
}
