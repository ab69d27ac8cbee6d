package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The M_Key on by default: made once, kept in the state directory readable by its owner only, the
 * same after a restart; {@code none} to opt out; {@code 0} refused rather than read as "no key".
 */
class MKeysTest {
    @Test
    void theMKeyIsMadeOnceKeptOwnerOnlyAndTheSameAfterARestart(@TempDir Path dir) throws Exception {
        long key = MKeys.resolve(null, null, dir);
        assertNotEquals(0, key);
        Path file = dir.resolve(MKeys.FILE);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals(String.format("%016x", key), Files.readString(file).strip());
        assertEquals(key, MKeys.resolve(null, null, dir), "a restarted manager keeps its key");
        assertNotEquals(key, MKeys.resolve(null, null, dir.resolve("another")), "another state directory, another fabric's key");
    }

    @Test
    void anMKeyIsGivenOrFiledOrExplicitlyNone(@TempDir Path dir) throws Exception {
        assertEquals(0, MKeys.resolve("none", null, dir));
        assertEquals(0, MKeys.resolve("NONE", null, dir));
        assertFalse(Files.exists(dir.resolve(MKeys.FILE)), "no key made when told none");
        assertEquals(0x5eedL, MKeys.resolve("0x5eed", null, dir));
        assertEquals(-1L, MKeys.resolve("ffffffffffffffff", null, dir), "keys are unsigned 64-bit");
        Path shared = dir.resolve("shared-key");
        Files.writeString(shared, "00000000cafef00d\n");
        assertEquals(0xcafef00dL, MKeys.resolve(null, shared, dir));
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> MKeys.resolve("0", null, dir));
        assertTrue(zero.getMessage().contains("0 is not an M_Key") && zero.getMessage().contains("--m-key none"), zero.getMessage());
        assertThrows(IllegalArgumentException.class, () -> MKeys.resolve("0x0000", null, dir));
        Files.writeString(shared, "0\n");
        assertThrows(IllegalArgumentException.class, () -> MKeys.resolve(null, shared, dir), "0 in a file is no key either");
    }
}
