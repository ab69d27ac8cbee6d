package org.fabriclab.manager.sweep;

/** A heavy sweep stopped before touching the switches (or part way through a push); the message says why. */
public final class SweepException extends Exception {
    private static final long serialVersionUID = 1L;

    public SweepException(String message) {
        super(message);
    }
}
