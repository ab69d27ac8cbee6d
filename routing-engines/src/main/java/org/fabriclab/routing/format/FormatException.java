package org.fabriclab.routing.format;

import java.io.IOException;

/**
 * A file that cannot be read as its format says, with where and why:
 * {@code fabric.net:42: port 37 is out of range for "S1", which has ports 1..36}.
 */
public final class FormatException extends IOException {
    private static final long serialVersionUID = 1L;
    private final String source;
    private final int line;
    private final String problem;

    public FormatException(String source, int line, String problem) {
        super(source + ":" + line + ": " + problem);
        this.source = source;
        this.line = line;
        this.problem = problem;
    }

    /** The file (or other source) name. */
    public String source() {
        return source;
    }

    /** The 1-based line number, or 0 when the problem is with the file as a whole. */
    public int line() {
        return line;
    }

    /** What is wrong, without the location. */
    public String problem() {
        return problem;
    }
}
