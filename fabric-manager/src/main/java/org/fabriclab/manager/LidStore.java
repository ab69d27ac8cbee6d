package org.fabriclab.manager;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import org.fabriclab.routing.format.FormatException;
import org.fabriclab.routing.format.Guid2LidFile;
import org.fabriclab.routing.format.TextLines;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The manager's {@code guid2lid} (OpenSM's format, in the state directory): the LIDs it remembers
 * by port GUID, read once, kept in memory, written back when a sweep changes them. Used on the
 * sweep thread only.
 *
 * <ul>
 *   <li>A bad line is skipped and logged with its file and line; the other lines keep their LIDs
 *       ({@link Guid2LidFile#read}).
 *   <li>The ports of nodes that are down at a sweep stay in the file with their LIDs, as OpenSM
 *       keeps them, and no newcomer takes those while another LID is free.
 *   <li>Before the file is overwritten its last contents are copied to {@code guid2lid.bak}; it is
 *       written only when its contents change (a temporary file, then an atomic rename).
 *   <li>A file that cannot be read (a directory, no permission, over {@value #MAX_BYTES} bytes) is
 *       reported at every heavy sweep and never written over; the sweep keeps the LIDs the ports
 *       hold (see {@code LidAssigner}), so nothing is renumbered.
 * </ul>
 */
final class LidStore {
    private static final Logger LOG = LoggerFactory.getLogger(LidStore.class);
    /** Far above any guid2lid (49,151 LIDs take 2 MB): a larger file is not one. */
    static final long MAX_BYTES = 16L << 20;
    /** Skipped lines logged one by one, the rest counted. */
    private static final int LOGGED_LINES = 20;
    private final Path file;
    /** What the file holds (as last read or written); null until it has been read. */
    private Map<Long, Integer> remembered;

    /** {@code file} null: LIDs are not kept. */
    LidStore(Path file) {
        this.file = file;
    }

    /** The remembered LIDs by port GUID (empty without a file, or while it cannot be read). */
    Map<Long, Integer> remembered() {
        if (remembered == null) {
            Map<Long, Integer> read = read();
            if (read == null) {
                return Map.of();
            }
            remembered = read;
        }
        return remembered;
    }

    /** The file's contents, or null (reported) if it cannot be read: then it must not be written over either. */
    private Map<Long, Integer> read() {
        if (file == null || !Files.exists(file)) {
            return Map.of();
        }
        String keep = "; LIDs are kept from the ports' own and the file is not written: fix or remove it";
        try {
            if (Files.isDirectory(file)) {
                LOG.error("the LID file {} is a directory{}", file, keep);
                return null;
            }
            long size = Files.size(file);
            if (size > MAX_BYTES) {
                LOG.error("the LID file {} has {} bytes, more than a guid2lid file has ({} at most){}", file, size, MAX_BYTES, keep);
                return null;
            }
            Guid2LidFile.Contents c;
            try (Reader r = TextLines.utf8(Files.newInputStream(file))) {
                c = Guid2LidFile.read(r, file.toString());
            }
            List<FormatException> skipped = c.skipped();
            for (int i = 0; i < Math.min(LOGGED_LINES, skipped.size()); i++) {
                LOG.warn("{}", skipped.get(i).getMessage());
            }
            if (skipped.size() > LOGGED_LINES) {
                LOG.warn("{}: {} more lines skipped", file, skipped.size() - LOGGED_LINES);
            }
            if (!skipped.isEmpty()) {
                LOG.warn("{}: {} ports keep their LIDs, {} lines were skipped; the file as it was is kept in {} when it is next written",
                        file, c.lids().size(), skipped.size(), backup());
            }
            return c.lids();
        } catch (IOException e) {
            LOG.error("cannot read the LID file {} ({}){}", file, e.getMessage(), keep);
            return null;
        }
    }

    /**
     * Keeps {@code lids} (the sweep's, with the absent ports' remembered ones): writes the file if
     * they differ from what it holds, after copying it to {@code .bak}. Nothing while the file
     * could not be read.
     */
    void keep(Map<Long, Integer> lids) {
        if (file == null || remembered == null || lids.equals(remembered)) {
            return;
        }
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
            if (Files.exists(file)) {
                Files.copy(file, backup(), StandardCopyOption.REPLACE_EXISTING);
            }
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            try (BufferedWriter w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
                Guid2LidFile.write(lids, w);
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            remembered = Map.copyOf(lids);
        } catch (IOException e) {
            LOG.warn("cannot write the LID file {} ({}); LIDs may change at the next restart", file, e.getMessage());
        }
    }

    private Path backup() {
        return file.resolveSibling(file.getFileName() + ".bak");
    }
}
