package org.fabriclab.manager.discovery;

/** Discovery could not start or finish; the message names the endpoint and what to check. */
public final class DiscoveryException extends Exception {
    private static final long serialVersionUID = 1L;

    public DiscoveryException(String message) {
        super(message);
    }
}
