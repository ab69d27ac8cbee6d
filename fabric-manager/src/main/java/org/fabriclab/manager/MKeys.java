package org.fabriclab.manager;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Set;
import org.fabriclab.cli.Pem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which M_Key the manager sets on every node and writes with (IBA 14.2.4: a node refuses changes
 * that do not carry its M_Key). On by default: a random key made the first time and kept in the
 * state directory ({@value #FILE}, mode 0600), so a restarted manager keeps its fabric. An
 * operator may give the key ({@code --m-key HEX}), a file holding it ({@code --m-key-file}, for a
 * key shared by a primary and its standbys), or run without one, explicitly ({@code --m-key none}).
 * {@code --m-key 0} is refused: a node reads 0 as "no key", so it cannot be a key's value, and it
 * must not quietly turn protection off.
 */
final class MKeys {
    private static final Logger LOG = LoggerFactory.getLogger(MKeys.class);
    /** The key's file in the state directory. */
    static final String FILE = "m-key";
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private MKeys() {
    }

    /**
     * The key: from {@code option} ({@code --m-key}: hex or {@code none}), else from {@code file}
     * ({@code --m-key-file}), else the state directory's, made if missing. 0 means none.
     *
     * @throws IllegalArgumentException naming the option or file and what is wrong with it
     */
    static long resolve(String option, Path file, Path stateDir) {
        if (option != null && file != null) {
            throw new IllegalArgumentException("give --m-key or --m-key-file, not both");
        }
        if (option != null) {
            return option.equalsIgnoreCase("none") ? 0 : parse("--m-key", option);
        }
        if (file != null) {
            return parse("--m-key-file " + file, Pem.secret("--m-key-file", file, LOG::warn));
        }
        Path kept = stateDir.resolve(FILE);
        try {
            return Files.exists(kept) ? parse(kept.toString(), Pem.secret("the state directory's M_Key file", kept, LOG::warn)) : create(kept);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot keep the M_Key in " + kept + " (" + Pem.why(e) + "); give --m-key-file FILE, "
                    + "or --m-key none to run without one");
        }
    }

    /** A key in hex (up to 16 digits, an optional 0x); 0 is refused. */
    static long parse(String where, String text) {
        String s = text.strip();
        if (!s.matches("(0[xX])?[0-9a-fA-F]{1,16}")) {
            throw new IllegalArgumentException(where + ": an M_Key is up to 16 hex digits, or 'none' to run without one; not '"
                    + (s.length() > 40 ? s.substring(0, 40) + "..." : s) + "'");
        }
        long key = Long.parseUnsignedLong(s.replaceFirst("^0[xX]", ""), 16);
        if (key == 0) {
            throw new IllegalArgumentException(where + ": 0 is not an M_Key (a node reads 0 as no key); give a non-zero key, "
                    + "or --m-key none to run without one");
        }
        return key;
    }

    /** A fresh random key, written to {@code file} readable by its owner only. */
    private static long create(Path file) throws IOException {
        long key = 0;
        while (key == 0) {
            key = new SecureRandom().nextLong();
        }
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        boolean posix = Files.getFileAttributeView(file.getParent() == null ? Path.of(".") : file.getParent(),
                PosixFileAttributeView.class) != null;
        try {
            if (posix) {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            } else {
                Files.createFile(file);
            }
        } catch (FileAlreadyExistsException raced) { // another manager made it first: use its key
            return parse(file.toString(), Pem.secret("the state directory's M_Key file", file, LOG::warn));
        }
        Files.writeString(file, String.format("%016x%n", key), StandardCharsets.UTF_8);
        LOG.info("made an M_Key for this fabric and kept it in {} (mode 0600); give it to the fabric's other managers "
                + "(--m-key-file)", file);
        return key;
    }
}
