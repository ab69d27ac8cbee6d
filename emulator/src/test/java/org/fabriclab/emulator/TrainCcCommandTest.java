package org.fabriclab.emulator;

import static org.fabriclab.emulator.SimCommandTest.assertRefused;
import static org.fabriclab.emulator.SimCommandTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.fabriclab.agent.core.RlCcPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code emulator train-cc} on a tiny budget: the same seed gives the same file byte for byte, whatever the threads; bad options are refused. */
class TrainCcCommandTest {
    private static final String[] TINY = {"train-cc", "--iterations", "2", "--population", "3", "--flows", "2,3", "--episode", "40us",
            "--trees", "4", "--depth", "2", "--dagger", "1"};

    private static String train(Path file, String... more) throws Exception {
        String[] args = SimCommandTest.concat(SimCommandTest.concat(TINY, "--output", file.toString()), more);
        SimCommandTest.Run r = run(args);
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("wrote " + file + ": 4 trees"), r.out());
        return Files.readString(file);
    }

    @Test
    void theSameSeedWritesTheSamePolicyWhateverTheThreads(@TempDir Path dir) throws Exception {
        String a = train(dir.resolve("a.policy"), "--seed", "7", "--threads", "1");
        String b = train(dir.resolve("b.policy"), "--seed", "7", "--threads", "2");
        assertEquals(a, b, "byte for byte");
        RlCcPolicy p = RlCcPolicy.parse("a.policy", a);
        assertEquals(4, p.trees());
        assertTrue(p.cost() <= 4 * 3, "depth 2: at most 2 comparisons and an addition a tree: " + p.cost());
        assertTrue(a.contains("# RL-CC policy trained by: emulator train-cc --seed 7 --iterations 2 --population 3 --flows 2,3 --episode "
                + "40000ns --reward-target 1.5 --trees 4 --depth 2 --dagger 1 --output FILE\n"), a);
        SimCommandTest.Run sim = run("sim", "--topology", "fat-tree:k=32,levels=1", "--many-to-one", "2", "--load", "1", "--duration",
                "50us", "--buffer", "32", "--output-buffer", "64", "--cc", "rl-cc", "--cc-param", "policy=" + dir.resolve("a.policy"));
        assertEquals(0, sim.code(), "what train-cc writes, --cc rl-cc reads: " + sim.err());
    }

    @Test
    void refusesOptionsOutOfRange(@TempDir Path dir) {
        String out = dir.resolve("p.policy").toString();
        assertRefused(run("train-cc", "--output", out, "--iterations", "0"), "emulator train-cc", "'--iterations'", "1..1000");
        assertRefused(run("train-cc", "--output", out, "--flows", "2,32"), "emulator train-cc", "'--flows'", "32", "1..31");
        assertRefused(run("train-cc", "--output", out, "--long-short-episodes", "31"), "emulator train-cc", "'--long-short-episodes'",
                "1..30");
        assertRefused(run("train-cc", "--output", out, "--trees", "40", "--depth", "4"), "emulator train-cc", "200 operations", "150");
        assertRefused(run("train-cc", "--output", out, "--episode", "1us"), "emulator train-cc", "'--episode'", "10us..100ms");
        assertRefused(run("train-cc", "--output", out, "--reward-target", "1"), "emulator train-cc", "'--reward-target'");
        assertRefused(run("train-cc", "--output", dir.resolve("no/such/dir/p.policy").toString()), "emulator train-cc", "'--output'",
                "cannot be written");
    }
}
