package org.fabriclab.agent;

/**
 * Entry point of {@code bin/switch-agent}. The agent (gRPC management endpoint and Netty
 * forwarding plane) is built by the control-plane issue; until then this launcher only says so,
 * and exits with status 2 so that no script mistakes it for a running switch.
 */
public final class SwitchAgentMain {
    private SwitchAgentMain() {
    }

    public static void main(String[] args) {
        System.err.println("switch-agent: not built yet: the switch agent (gRPC management, Netty forwarding plane)"
                + " arrives with the control-plane work; see README.md, 'Status'.");
        System.exit(2);
    }
}
