package org.fabriclab.agent.core;

/** A table batch refused as a whole; the switch's tables are unchanged. */
public final class TableWriteException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why: the batch is malformed or out of range, or it does not start from the installed version. */
    public enum Reason { INVALID, STALE_VERSION }

    private final Reason reason;

    public TableWriteException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
