package org.fabriclab.deploy;

import java.util.List;
import java.util.Map;

/** Reading parsed YAML by dotted paths ({@code spec.template.spec}); a missing step is null. */
final class Yamls {
    private Yamls() {
    }

    static Object at(Object node, String path) {
        Object here = node;
        for (String step : path.split("\\.")) {
            if (!(here instanceof Map<?, ?> m)) {
                return null;
            }
            here = m.get(step);
        }
        return here;
    }

    static String str(Object node, String path) {
        Object v = at(node, path);
        return v == null ? null : v.toString();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object node, String path) {
        Object v = at(node, path);
        return v == null ? Map.of() : (Map<String, Object>) v;
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> list(Object node, String path) {
        Object v = at(node, path);
        return v == null ? List.of() : (List<Map<String, Object>>) v;
    }
}
