package org.fabriclab.emulator;

/**
 * Entry point of {@code bin/emulator}. Running fabrics of agents, hosts and the simulator come
 * with the control-plane and simulator work; until then this launcher only says so and exits 2.
 */
public final class EmulatorMain {
    private EmulatorMain() {
    }

    public static void main(String[] args) {
        System.err.println("emulator: not built yet: running emulated fabrics arrives with the control-plane work;"
                + " to inspect a topology now use 'bin/fabricctl topology --topology SPEC --format summary'.");
        System.exit(2);
    }
}
