package org.fabriclab.emulator.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.fabriclab.emulator.sim.Simulation;
import org.fabriclab.routing.dragonfly.RoutingMode;
import org.fabriclab.routing.fabric.Fabric;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code emulator up --seed}: a live job placed at random lands where the simulator's {@code
 * --seed} puts it; without it, where {@code emulator sim}'s default seed does, as before. And
 * {@code --traffic-gbps} asked only of the jobs that run at it.
 */
class LiveJobSeedTest {
    private static final String JOB = "name=r,hosts=6,placement=random,pattern=barrier";

    @Test
    void theSeedPlacesLiveJobsAsTheSimulatorsDoes() {
        int[] seven = up("--seed", "7");
        int[] byDefault = up();
        assertArrayEquals(sim(7), seven, "--seed 7: the simulator's placement with --seed 7");
        assertArrayEquals(sim(1), byDefault, "no --seed: the simulator's default seed, 1");
        assertFalse(Arrays.equals(seven, byDefault), "another seed, other hosts");
    }

    /**
     * The live plane's --traffic-gbps is the rate of an open-loop job without load=: jobs that do
     * not use it (closed loops, jobs with load=) run whatever it is, and get no load themselves.
     */
    @Test
    void onlyOpenLoopJobsWithoutALoadTakeTrafficGbps() {
        assertTrue(Double.isNaN(live("--traffic-gbps", "500", "--job", "name=b,hosts=8,pattern=barrier").get(0).load()),
                "a closed loop has no load");
        assertEquals(0.3, live("--traffic-gbps", "500", "--job", "name=b,hosts=8,pattern=halo3d-loop", "--job",
                "name=o,hosts=8,load=0.3").get(1).load());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> live("--traffic-gbps", "500", "--job", "name=b,hosts=8,pattern=sweep3d", "--job", "name=o,hosts=8"));
        assertTrue(e.getMessage().contains("a job without load= runs at --traffic-gbps 500.0"), e.getMessage());
    }

    private static List<Simulation.Job> live(String... args) {
        UpCommand up = new UpCommand();
        String[] all = new String[args.length + 2];
        all[0] = "--topology";
        all[1] = "dragonfly:p=2,a=4,h=2";
        System.arraycopy(args, 0, all, 2, args.length);
        new CommandLine(up).parseArgs(all);
        return up.jobOptions.placeLive(up.topology.fabric(), up.traffic, up.link.linkGbps, UpCommand.PAYLOAD_BYTES, up.seed);
    }

    private static int[] up(String... seed) {
        UpCommand up = new UpCommand();
        String[] args = {"--topology", "dragonfly:p=2,a=4,h=2", "--job", JOB};
        String[] all = Arrays.copyOf(args, args.length + seed.length);
        System.arraycopy(seed, 0, all, args.length, seed.length);
        new CommandLine(up).parseArgs(all);
        Fabric f = up.topology.fabric();
        List<Simulation.Job> jobs = up.jobOptions.placeLive(f, up.traffic, up.link.linkGbps, UpCommand.PAYLOAD_BYTES, up.seed);
        return jobs.get(0).hosts();
    }

    private static int[] sim(long seed) {
        JobOptions o = new JobOptions();
        o.texts.add(JOB);
        UpCommand up = new UpCommand();
        new CommandLine(up).parseArgs("--topology", "dragonfly:p=2,a=4,h=2");
        return o.place(up.topology.fabric(), seed, 0.5, RoutingMode.DEFAULT, UpCommand.PAYLOAD_BYTES, 1024).get(0).hosts();
    }
}
