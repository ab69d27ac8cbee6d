package org.fabriclab.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.format.TextLines;
import org.fabriclab.routing.topology.Topologies;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A topology option's value: the spec as written (reports repeat it) and the fabric it names,
 * generated or read while the command line is parsed, so a bad spec or a missing file is refused
 * before anything starts.
 */
public record TopologyArg(String spec, Fabric fabric) {
    /** The fabric {@code spec} names: a generator spec, or {@code file:PATH} read as UTF-8. */
    public static Fabric load(String spec) throws IOException {
        return Topologies.load(spec, path -> {
            if (Files.isDirectory(Path.of(path))) {
                throw new NoSuchFileException(path, null, "is a directory, not a net file");
            }
            try {
                // bytes that are not UTF-8 become U+FFFD, which the parser reports on their own line
                return TextLines.utf8(Files.newInputStream(Path.of(path)));
            } catch (NoSuchFileException e) {
                throw new NoSuchFileException(path, null, "no such file");
            }
        });
    }

    @Override
    public String toString() {
        return spec;
    }

    /** {@code --topology SPEC}: fat-tree:k=4,levels=3, torus:4x4, dragonfly:p=2,a=4,h=2, file:fabric.net, ... */
    public static final class Converter implements ITypeConverter<TopologyArg> {
        @Override
        public TopologyArg convert(String spec) {
            try {
                return new TopologyArg(spec, load(spec));
            } catch (NoSuchFileException e) {
                throw new TypeConversionException(e.getFile() + ": " + e.getReason());
            } catch (IOException | IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
