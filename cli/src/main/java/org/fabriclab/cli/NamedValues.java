package org.fabriclab.cli;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The names an option accepts and what each means, as one table: the option's converter (an
 * unknown name is refused while parsing, with the names there are) and its completion candidates
 * ({@code ${COMPLETION-CANDIDATES}} in the help). Subclass it once per kind of name, with a no-arg
 * constructor, and name the subclass as both {@code converter} and {@code completionCandidates}.
 *
 * @param <T> what a name stands for; may be null (e.g. {@code none})
 */
public abstract class NamedValues<T> implements ITypeConverter<T>, Iterable<String> {
    private final String what;
    private final Map<String, T> byName;

    /** {@code what} names the kind in messages ("traffic pattern"); {@code byName} in the order help lists them. */
    protected NamedValues(String what, Map<String, T> byName) {
        this.what = what;
        this.byName = new LinkedHashMap<>(byName);
    }

    /** A table from alternating names and values: {@code table("on", true, "off", false)}. */
    @SuppressWarnings("unchecked")
    protected static <T> Map<String, T> table(Object... nameValue) {
        Map<String, T> m = new LinkedHashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) {
            m.put((String) nameValue[i], (T) nameValue[i + 1]);
        }
        return m;
    }

    @Override
    public T convert(String name) {
        if (!byName.containsKey(name)) {
            throw new TypeConversionException("'" + name + "' is not a " + what + "; use " + String.join(", ", byName.keySet()));
        }
        return byName.get(name);
    }

    /** The name of {@code value}, as a report writes it. */
    public String nameOf(T value) {
        return byName.entrySet().stream().filter(e -> Objects.equals(e.getValue(), value)).findFirst()
                .map(Map.Entry::getKey).orElseThrow(() -> new IllegalArgumentException("no name for " + value));
    }

    @Override
    public Iterator<String> iterator() {
        return byName.keySet().iterator();
    }
}
