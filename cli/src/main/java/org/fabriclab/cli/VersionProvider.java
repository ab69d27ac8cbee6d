package org.fabriclab.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code --version} for every main: the command's name and the build's version, which Maven writes
 * into {@code version.properties} from the POM (so no launcher or {@code @Command} repeats it).
 * Use as {@code @Command(versionProvider = VersionProvider.class)}.
 */
public final class VersionProvider implements IVersionProvider {
    private static final String RESOURCE = "version.properties";

    @Spec
    CommandSpec spec;

    @Override
    public String[] getVersion() {
        return new String[] {spec.name() + " " + version()};
    }

    /** The build's version, e.g. {@code 0.1.0-SNAPSHOT}. */
    public static String version() {
        try (InputStream in = VersionProvider.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing beside " + VersionProvider.class.getName()
                        + "; build with Maven, which writes it");
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }
}
