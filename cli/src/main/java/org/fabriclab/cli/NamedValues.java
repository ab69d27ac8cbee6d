package org.fabriclab.cli;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The names an option accepts and what each means, as one table: the option's converter (an
 * unknown name is refused while parsing, with the names there are) and its completion candidates
 * ({@code ${COMPLETION-CANDIDATES}} in the help). Subclass it once per kind of name, with a no-arg
 * constructor, and name the subclass as both {@code converter} and {@code completionCandidates}.
 * A family of names with a parameter ({@code adv+N}) is a <em>form</em>: listed after the table's
 * names as help shows it, read by the subclass's {@link #convertForm} and named by {@link #formName}.
 *
 * @param <T> what a name stands for; may be null (e.g. {@code none})
 */
public abstract class NamedValues<T> implements ITypeConverter<T>, Iterable<String> {
    private final String what;
    private final Map<String, T> byName;
    private final List<String> forms;

    /** {@code what} names the kind in messages ("traffic pattern"); {@code byName} in the order help lists them. */
    protected NamedValues(String what, Map<String, T> byName) {
        this(what, byName, List.of());
    }

    /** As {@link #NamedValues(String, Map)}, with {@code forms} of parametric names as help shows them ("adv+N"). */
    protected NamedValues(String what, Map<String, T> byName, List<String> forms) {
        this.what = what;
        this.byName = new LinkedHashMap<>(byName);
        this.forms = List.copyOf(forms);
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
        if (byName.containsKey(name)) {
            return byName.get(name);
        }
        T v = convertForm(name);
        if (v == null) {
            throw new TypeConversionException("'" + name + "' is not a " + what + "; use " + String.join(", ", this));
        }
        return v;
    }

    /**
     * The value of {@code name} if it is of one of the forms, else null (the table has no forms:
     * always null).
     *
     * @throws TypeConversionException if {@code name} is of a form but malformed, saying what is wrong
     */
    protected T convertForm(String name) {
        return null;
    }

    /** The name of a value outside the table, one of a form's; the table has no forms: none. */
    protected String formName(T value) {
        throw new IllegalArgumentException("no name for " + value);
    }

    /** The name of {@code value}, as a report writes it: the table's first name for it, else its form's. */
    public String nameOf(T value) {
        return byName.entrySet().stream().filter(e -> Objects.equals(e.getValue(), value)).findFirst()
                .map(Map.Entry::getKey).orElseGet(() -> formName(value));
    }

    /** The table's names, then the forms. */
    @Override
    public Iterator<String> iterator() {
        List<String> all = new ArrayList<>(byName.keySet());
        all.addAll(forms);
        return all.iterator();
    }
}
