package org.fabriclab.emulator.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import org.fabriclab.cli.NamedValues;
import org.fabriclab.routing.dragonfly.RoutingMode;

/**
 * {@code --routing-mode}: the routing mode the hosts' packets ask for, by Aries' names
 * ({@code ADAPTIVE_0} .. {@code ADAPTIVE_3}, {@code MIN_HASH}, {@code NMIN_HASH}, {@code IN_ORDER},
 * and {@code DEFAULT}: none, the fabric's routing as configured), in any case and with {@code -} for
 * {@code _}; an unknown name is refused while parsing with the names there are.
 */
public final class RoutingModes extends NamedValues<RoutingMode> {
    public RoutingModes() {
        super("routing mode", names());
    }

    private static Map<String, RoutingMode> names() {
        Map<String, RoutingMode> m = new LinkedHashMap<>();
        for (RoutingMode mode : RoutingMode.values()) {
            m.put(mode.name(), mode);
        }
        return m;
    }

    /** Another spelling of a name (lower case, {@code -} for {@code _}); null for none. */
    @Override
    protected RoutingMode convertForm(String name) {
        try {
            return RoutingMode.byName(name);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
