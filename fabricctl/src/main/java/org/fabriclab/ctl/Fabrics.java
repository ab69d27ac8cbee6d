package org.fabriclab.ctl;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.topology.Topologies;

/** Loads a fabric from a topology spec, opening {@code file:} paths for the routing library. */
final class Fabrics {
    private Fabrics() {
    }

    static Fabric load(String spec) throws IOException {
        return Topologies.load(spec, path -> {
            try {
                return Files.newBufferedReader(Path.of(path), StandardCharsets.UTF_8);
            } catch (NoSuchFileException e) {
                throw new NoSuchFileException(path, null, "no such topology file");
            }
        });
    }
}
