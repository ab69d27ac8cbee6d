package org.fabriclab.manager;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The manager's table version ({@code fabricctl status}'s {@code tableVersion}: how many times the
 * fabric's tables changed) kept in {@code table-version} in the state directory, one decimal number,
 * so that a restarted manager goes on from where it was instead of starting again at 1. A file that
 * cannot be read is reported and the count starts from 0.
 */
final class TableVersionFile {
    private static final Logger LOG = LoggerFactory.getLogger(TableVersionFile.class);

    private TableVersionFile() {
    }

    /** The version kept in {@code file}, or 0 (none, null, or unreadable: logged). */
    static long read(Path file) {
        if (file == null || !Files.isRegularFile(file)) {
            return 0;
        }
        try {
            if (Files.size(file) > 64) {
                throw new IOException("longer than a number");
            }
            String text = Files.readString(file, StandardCharsets.UTF_8).strip();
            long v = Long.parseLong(text);
            if (v < 0) {
                throw new NumberFormatException("negative");
            }
            return v;
        } catch (IOException | NumberFormatException e) {
            LOG.warn("cannot read the table version from {} ({}); counting from 0", file, e.getMessage());
            return 0;
        }
    }

    /** Keeps {@code version} in {@code file} (a temporary file, then an atomic rename); a failure is logged. */
    static void write(Path file, long version) {
        if (file == null) {
            return;
        }
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, version + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            LOG.warn("cannot keep the table version in {} ({}); a restart counts from the last kept", file, e.getMessage());
        }
    }
}
