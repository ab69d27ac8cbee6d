package org.fabriclab.deploy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * The chart in {@code deploy/helm/fabriclab}, linted and rendered by Helm's own library (helm-java,
 * Helm 3 compiled into a native library: {@code helm lint} and {@code helm template} in this JVM,
 * offline, no helm binary), its manifests parsed as YAML.
 */
final class Chart {
    /** The release the tests render, and its namespace. */
    static final String RELEASE = "lab";
    static final String NAMESPACE = "fab";
    /**
     * What {@code helm template} is told the cluster runs: helm-java's library, built without
     * Helm's version flags, would otherwise assume Kubernetes 1.20, which the chart's kubeVersion
     * (1.28+) refuses; a real helm binary assumes its own client's version.
     */
    static final String KUBE_VERSION = "1.30.0";

    private Chart() {
    }

    /** The chart's directory (the build passes it; the working directory's deploy/helm/fabriclab otherwise). */
    static Path dir() {
        Path dir = Path.of(Objects.requireNonNullElse(System.getProperty("fabriclab.chart"), "helm/fabriclab"));
        if (!Files.isRegularFile(dir.resolve("Chart.yaml"))) {
            throw new IllegalStateException("no chart at " + dir.toAbsolutePath());
        }
        return dir;
    }

    /** The project's version: the images' tag. */
    static String projectVersion() {
        return Objects.requireNonNull(System.getProperty("fabriclab.version"), "the build sets fabriclab.version");
    }

    /** {@code helm lint --strict} of the chart with its own values. */
    static LintResult lint() {
        return new Helm(dir()).lint().strict().call();
    }

    /**
     * {@code helm template} with {@code values} set ({@code --set key=value} each); throws
     * IllegalStateException with Helm's message where Helm refuses (the schema, a template's fail).
     */
    static Manifests render(Map<String, Object> values) {
        TemplateCommand t = new Helm(dir()).template().withName(RELEASE).withNamespace(NAMESPACE).withKubeVersion(KUBE_VERSION);
        values.forEach(t::set);
        return Manifests.parse(t.call());
    }

    /** A YAML file of the chart (Chart.yaml, values.yaml, rules/...), parsed. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> yamlFile(String path) throws java.io.IOException {
        return (Map<String, Object>) new Yaml(new LoaderOptions()).load(Files.readString(dir().resolve(path)));
    }

    /** The rendered manifests, in order. */
    record Manifests(List<Map<String, Object>> all) {
        @SuppressWarnings("unchecked")
        static Manifests parse(String rendered) {
            List<Map<String, Object>> docs = new ArrayList<>();
            for (Object doc : new Yaml(new LoaderOptions()).loadAll(rendered)) {
                if (doc != null) {
                    docs.add((Map<String, Object>) doc);
                }
            }
            return new Manifests(docs);
        }

        List<Map<String, Object>> ofKind(String kind) {
            return all.stream().filter(d -> kind.equals(d.get("kind"))).toList();
        }

        /** The one manifest of this kind and name. */
        Map<String, Object> get(String kind, String name) {
            return ofKind(kind).stream().filter(d -> name.equals(Yamls.str(d, "metadata.name"))).findFirst()
                    .orElseThrow(() -> new AssertionError("no " + kind + " " + name + " in " + names()));
        }

        /** Every workload (StatefulSet, Deployment). */
        List<Map<String, Object>> workloads() {
            return all.stream().filter(d -> d.get("kind").equals("StatefulSet") || d.get("kind").equals("Deployment")).toList();
        }

        List<String> names() {
            return all.stream().map(d -> d.get("kind") + "/" + Yamls.str(d, "metadata.name")).toList();
        }
    }
}
