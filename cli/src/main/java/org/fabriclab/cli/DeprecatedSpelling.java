package org.fabriclab.cli;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an option's old spelling, kept working for one release: when a command line uses it,
 * {@link Cli} writes one warning line on standard error naming the spelling to use instead. Put it
 * on the {@code @Option} field or setter; a hidden setter option is the way to keep an old name
 * whose value had another form (a bare number of milliseconds, {@code dr|ar} for {@code on|off}).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD})
public @interface DeprecatedSpelling {
    /** The deprecated names among the option's names; empty means all of them. */
    String[] names() default {};

    /** What to write instead, as the warning shows it, e.g. {@code --engine CHAIN}. */
    String use();
}
