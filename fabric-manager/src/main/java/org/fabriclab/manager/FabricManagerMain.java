package org.fabriclab.manager;

/**
 * Entry point of {@code bin/fabric-manager}. The daemon (discovery over gRPC, LID assignment,
 * routing, validated push, metrics) is the control-plane work; until then this launcher only says
 * so and exits 2. Offline routing is {@code bin/fabricctl route}.
 */
public final class FabricManagerMain {
    private FabricManagerMain() {
    }

    public static void main(String[] args) {
        System.err.println("fabric-manager: not built yet: the daemon arrives with the control-plane work;"
                + " route a fabric offline with 'bin/fabricctl route --topology SPEC --engine NAME'.");
        System.exit(2);
    }
}
