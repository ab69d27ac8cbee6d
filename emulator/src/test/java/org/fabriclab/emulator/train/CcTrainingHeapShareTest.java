package org.fabriclab.emulator.train;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * train-cc runs its episodes on {@code --threads} threads at once, so each episode's simulation is
 * sized against that share of the heap (as {@code emulator sweep}'s points are), not the whole heap.
 * What a share does to a pool is {@code Simulation.poolLimit}'s tests'; that a training's result does
 * not depend on the threads is {@code TrainCcCommandTest}'s.
 */
class CcTrainingHeapShareTest {
    private static CcTraining.Options withThreads(int threads) {
        return new CcTraining.Options(1, 1, 2, List.of(2), List.of(), 100_000, 0.5, 2, 2, 0, threads);
    }

    @Test
    void eachEpisodeGetsItsThreadsShareOfTheHeap() {
        assertEquals(1, CcTraining.concurrentSimulations(withThreads(1)));
        assertEquals(4, CcTraining.concurrentSimulations(withThreads(4)));
    }
}
