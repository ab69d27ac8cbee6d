package org.fabriclab.emulator.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import org.fabriclab.agent.core.CrossbarArbitration;
import org.fabriclab.cli.NamedValues;

/** {@code --arbitration}: how the simulated switches' outputs choose among waiting input buffers, by {@link CrossbarArbitration#label}. */
public final class Arbitrations extends NamedValues<CrossbarArbitration> {
    public Arbitrations() {
        super("crossbar arbitration", names());
    }

    private static Map<String, CrossbarArbitration> names() {
        Map<String, CrossbarArbitration> m = new LinkedHashMap<>();
        for (CrossbarArbitration a : CrossbarArbitration.values()) {
            m.put(a.label(), a);
        }
        return m;
    }
}
