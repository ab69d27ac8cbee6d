/**
 * Training RL-CC policies on the simulator ({@code emulator train-cc}): the teacher's search on the
 * RL-CC reward, and the boosted trees it is distilled into, written in {@code agent.core.RlCcPolicy}'s
 * file format. Runs simulations through {@code emulator.sim} only; deterministic for a seed.
 */
package org.fabriclab.emulator.train;
