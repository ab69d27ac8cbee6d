package org.fabriclab.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.format.TextLines;
import org.fabriclab.routing.text.Excerpt;
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

    /**
     * Why a fabric without hosts is refused, naming the parameter that left them out: a command
     * that routes or carries traffic between hosts would route and report a fabric of switches
     * alone as if it were one ({@code dragonfly:p=0}). A command that only reads the fabric (prints
     * it) takes one: {@link AnyFabric}.
     */
    static String noHosts(String spec) {
        String shown = Excerpt.bare(spec);
        if (spec.startsWith("file:")) {
            return shown + " has no hosts: no channel adapter (Ca) is cabled to a switch; give a fabric with hosts";
        }
        Topologies.HostsParameter p = Topologies.hostsParameter(spec);
        return p == null ? shown + " has no hosts; give a fabric with hosts"
                : shown + " has no hosts: " + p.name() + " is the number of hosts on each " + p.on() + "; give " + p.name() + "=1 or more";
    }

    /** {@code --topology SPEC}: fat-tree:k=4,levels=3, torus:4x4, dragonfly:p=2,a=4,h=2, file:fabric.net, ...; a fabric without hosts refused. */
    public static final class Converter implements ITypeConverter<TopologyArg> {
        @Override
        public TopologyArg convert(String spec) {
            return TopologyArg.convert(spec, true);
        }
    }

    /**
     * {@code --topology SPEC} of a command that only reads the fabric ({@code fabricctl topology}
     * prints it): a fabric of switches alone is taken too, as the torus study's tori are.
     */
    public static final class AnyFabric implements ITypeConverter<TopologyArg> {
        @Override
        public TopologyArg convert(String spec) {
            return TopologyArg.convert(spec, false);
        }
    }

    private static TopologyArg convert(String spec, boolean needsHosts) {
        try {
            Fabric f = load(spec);
            if (needsHosts && f.endpointCount() == 0) {
                throw new TypeConversionException(noHosts(spec));
            }
            return new TopologyArg(spec, f);
        } catch (TypeConversionException e) {
            throw e;
        } catch (NoSuchFileException e) {
            throw new TypeConversionException(e.getFile() + ": " + e.getReason());
        } catch (IOException | IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
