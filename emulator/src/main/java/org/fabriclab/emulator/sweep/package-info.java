/**
 * Offered-load sweeps: a grid of (engine, load) simulations run side by side on a fixed pool of
 * threads, each point one {@code emulator.sim} run of its own, and their curves drawn as SVG.
 * Routing and simulation decisions belong in the engines and the cores; this package only
 * schedules runs and gathers their reports, in grid order, so the results do not depend on the
 * number of threads.
 */
package org.fabriclab.emulator.sweep;
