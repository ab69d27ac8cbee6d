package org.fabriclab.testkit;

import org.junit.jupiter.api.Assumptions;

/**
 * The precondition of a test that measures live traffic against the clock (an integration test,
 * {@code *IT}): the machine kept up with the links it emulates. Where it did not (two cores shared
 * with other builds, say), what was measured is the machine's starvation, not the code's
 * behaviour, and the test is aborted (reported as skipped, with the figures) instead of failed.
 */
public final class LiveRates {
    private LiveRates() {
    }

    /**
     * Aborts the test unless {@code measured} reached {@code atLeast} (a fraction) of {@code
     * expected}: what the live run carried against what the links allow.
     */
    public static void assumeKeptUp(String what, double measured, double expected, double atLeast) {
        Assumptions.assumeTrue(measured >= atLeast * expected, () -> String.format(
                "the machine did not keep up with the emulated links (%s: %.3f of %.3f, below %.0f%%): a live rate measured now "
                        + "would measure the machine; run again on a quieter one", what, measured, expected, 100 * atLeast));
    }

    /**
     * Aborts the test unless the emulation's fidelity monitor found the run faithful: its worst
     * lag behind model time ({@code lagNs}) within {@code boundNs}. {@code figures} (what was
     * measured) go into the message, so an aborted run still says what it saw.
     */
    public static void assumeFaithful(String what, long lagNs, long boundNs, String figures) {
        Assumptions.assumeTrue(lagNs <= boundNs, () -> String.format(
                "the machine did not keep up with the emulated links (%s: lag %d ns of model time, beyond the bound %d ns): "
                        + "what was measured is the machine's; run again on a quieter one. Measured: %s", what, lagNs, boundNs, figures));
    }
}
