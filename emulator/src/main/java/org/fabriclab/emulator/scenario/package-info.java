/**
 * The adaptive-routing paper's experiments (section IV, configurations C1 and C2) as named
 * scenarios, run simulated (through {@code emulator.sim}) or live (through {@code emulator.live}),
 * and their per-flow throughput plots. Scenarios build fabrics and read counters; they hold no
 * switch or host decision of their own.
 */
package org.fabriclab.emulator.scenario;
