package org.fabriclab.routing.format;

import java.io.IOException;

/**
 * A Q-table snapshot that cannot be used, with the file and what is wrong: one that is not a
 * snapshot, is cut short, damaged or inconsistent ({@link Kind#CORRUPT}), or one that is sound but
 * of another fabric or other tables than the ones it is offered to ({@link Kind#MISMATCH}):
 * {@code qtables/adv1.qts: cut short: 1,180 bytes, the header says 1,224}.
 */
public final class QTableSnapshotException extends IOException {
    private static final long serialVersionUID = 1L;

    /** Why the snapshot cannot be used. */
    public enum Kind {
        /** Not a snapshot, cut short, damaged (checksum), of an unknown version, or inconsistent within itself. */
        CORRUPT,
        /** A sound snapshot of another fabric, or of tables of another shape. */
        MISMATCH
    }

    private final String source;
    private final Kind kind;
    private final String problem;

    public QTableSnapshotException(String source, Kind kind, String problem) {
        super(source + ": " + problem);
        this.source = source;
        this.kind = kind;
        this.problem = problem;
    }

    /** The file (or other source) name. */
    public String source() {
        return source;
    }

    public Kind kind() {
        return kind;
    }

    /** What is wrong, without the file. */
    public String problem() {
        return problem;
    }
}
