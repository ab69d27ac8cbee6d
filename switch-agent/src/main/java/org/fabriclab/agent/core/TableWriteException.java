package org.fabriclab.agent.core;

/** A table batch refused as a whole; the switch's tables are unchanged. */
public final class TableWriteException extends Exception {
    private static final long serialVersionUID = 1L;

    /**
     * Why: the batch is malformed or a value out of its range ({@code INVALID}), it moves the
     * tables to a version above the ceiling ({@code VERSION_CEILING}), or it does not start from
     * the installed version ({@code STALE_VERSION}).
     */
    public enum Reason { INVALID, VERSION_CEILING, STALE_VERSION }

    private final Reason reason;

    public TableWriteException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
