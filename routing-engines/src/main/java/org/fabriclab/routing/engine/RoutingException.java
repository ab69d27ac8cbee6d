package org.fabriclab.routing.engine;

/** A routing engine could not route the fabric it was given; the message says why and what to try. */
public final class RoutingException extends Exception {
    private static final long serialVersionUID = 1L;
    private final String engine;

    public RoutingException(String engine, String reason) {
        super(engine + ": " + reason);
        this.engine = engine;
    }

    /** The engine that failed. */
    public String engine() {
        return engine;
    }
}
