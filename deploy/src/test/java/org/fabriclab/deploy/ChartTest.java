package org.fabriclab.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.marcnuri.helm.LintResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.fabriclab.deploy.Chart.Manifests;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The helm chart, linted and rendered by Helm itself for its default values and the other value
 * sets below (each fabric mode, standbys, the ServiceMonitor and rules), every rendered manifest
 * parsed and held to what the launchers really do: the images the build makes, every flag an
 * option of its launcher's picocli command with a value it accepts, probes and Services on the
 * ports the daemons are told to serve, loopback left only by explicit flags, containers locked
 * down; and the schema refusing bad values with its message.
 */
class ChartTest {
    /** A set of values, as {@code --set} pairs. */
    record ValueSet(String name, Map<String, Object> values) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static Map<String, Object> values(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    static Stream<ValueSet> valueSets() {
        return Stream.of(
                new ValueSet("defaults (embedded)", values()),
                new ValueSet("single-pod with a standby and an M_Key", values("fabric.mode", "single-pod", "manager.standby.enabled", true,
                        "manager.mKey.existingSecret", "fabriclab-m-key", "fabric.timeDilation", "50", "manager.engine", "updn,minhop")),
                new ValueSet("pod-per-switch with ServiceMonitor and rules", values("fabric.mode", "pod-per-switch",
                        "fabric.topology", "rlft:leaves=4,spines=2,hosts=2", "fabric.switches.count", 6, "serviceMonitor.enabled", true,
                        "serviceMonitor.labels.release", "prometheus", "prometheusRule.enabled", true, "prometheusRule.labels.release", "prometheus")),
                new ValueSet("embedded without persistence, from a registry, no dashboards", values("manager.persistence.enabled", false,
                        "image.registry", "registry.lab:5000", "image.tag", "test", "dashboards.enabled", false, "fabric.linkLatency", "100ns",
                        "fabric.traffic", "all-to-all", "fabric.trafficGbps", "0.5", "fabric.linkGbps", "1")));
    }

    private static List<Map<String, Object>> containers(Map<String, Object> workload) {
        return Yamls.list(workload, "spec.template.spec.containers");
    }

    private static Map<String, String> env(Map<String, Object> container) {
        Map<String, String> env = new HashMap<>();
        for (Map<String, Object> e : Yamls.list(container, "env")) {
            // a value from a field or a secret: a stand-in of the right shape
            Object v = e.containsKey("value") ? e.get("value") : Yamls.at(e, "valueFrom.secretKeyRef") != null ? "5eed" : "pod-0";
            env.put((String) e.get("name"), e.get("name").equals("POD_INDEX") ? "0" : v.toString());
        }
        return env;
    }

    @SuppressWarnings("unchecked")
    private static List<String> args(Map<String, Object> container) {
        return ((List<Object>) container.get("args")).stream().map(Object::toString).toList();
    }

    private static Launcher launcher(Map<String, Object> container) {
        return Launcher.ofImage((String) container.get("name"));
    }

    private static Launcher.Parsed parsed(Map<String, Object> container) {
        return launcher(container).parse(args(container), env(container));
    }

    /** The container's ports, by name. */
    private static Map<String, Integer> ports(Map<String, Object> container) {
        Map<String, Integer> ports = new HashMap<>();
        for (Map<String, Object> p : Yamls.list(container, "ports")) {
            ports.put((String) p.get("name"), (Integer) p.get("containerPort"));
        }
        return ports;
    }

    @Test
    void lintsCleanAndCarriesTheProjectsVersion() throws Exception {
        LintResult lint = Chart.lint();
        assertFalse(lint.isFailed(), String.join("\n", lint.getMessages()));
        assertTrue(lint.getMessages().stream().noneMatch(m -> m.contains("[ERROR]") || m.contains("[WARNING]")), lint.getMessages().toString());
        assertEquals(Chart.projectVersion(), Chart.yamlFile("Chart.yaml").get("appVersion"),
                "appVersion is the version the images are built and tagged with (./mvnw -Pimages package)");
    }

    @ParameterizedTest
    @MethodSource("valueSets")
    void imagesAreTheOnesTheBuildMakes(ValueSet set) {
        Manifests m = Chart.render(set.values());
        String registry = (String) set.values().getOrDefault("image.registry", "");
        String tag = (String) set.values().getOrDefault("image.tag", Chart.projectVersion());
        for (Map<String, Object> w : m.workloads()) {
            for (Map<String, Object> c : containers(w)) {
                String expected = (registry.isEmpty() ? "" : registry + "/") + "fabriclab/" + launcher(c).image + ":" + tag;
                assertEquals(expected, c.get("image"), Yamls.str(w, "metadata.name"));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("valueSets")
    void everyFlagIsAnOptionOfItsLauncherWithAValueItTakes(ValueSet set) {
        Manifests m = Chart.render(set.values());
        int checked = 0;
        for (Map<String, Object> w : m.workloads()) {
            for (Map<String, Object> c : containers(w)) {
                Launcher.Parsed p = parsed(c);
                assertNotNull(p.result());
                checked++;
            }
        }
        String mode = (String) set.values().getOrDefault("fabric.mode", "embedded");
        assertEquals(switch (mode) {
            case "embedded" -> 1;
            case "single-pod" -> 2;
            default -> 3;
        }, checked, "containers: the manager, the emulator's pod, the switches' pods");
    }

    @ParameterizedTest
    @MethodSource("valueSets")
    void probesAndServicesPointAtThePortsTheDaemonsServe(ValueSet set) {
        Manifests m = Chart.render(set.values());
        for (Map<String, Object> w : m.workloads()) {
            for (Map<String, Object> c : containers(w)) {
                Launcher.Parsed p = parsed(c);
                Map<String, Integer> ports = ports(c);
                // the port each daemon is told to bind, by the flag that binds it
                Map<String, String> served = switch (launcher(c)) {
                    case FABRIC_MANAGER -> Map.of("admin", "--admin-port", "metrics", "--metrics-port");
                    case EMULATOR -> Map.of("management", "--management-port");
                    case SWITCH_AGENT -> Map.of("management", "--management-port", "data", "--data-port");
                };
                assertEquals(served.keySet(), ports.keySet(), c.get("name") + ": a container port for each port it serves, and none else");
                served.forEach((name, flag) -> assertEquals(Integer.parseInt(p.value(flag)), ports.get(name), c.get("name") + " " + flag));
                for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
                    Map<String, Object> pr = Yamls.map(c, probe);
                    if (pr.isEmpty()) {
                        assertTrue(!probe.equals("livenessProbe") && !probe.equals("readinessProbe"), c.get("name") + " has no " + probe);
                        continue;
                    }
                    Object port = pr.containsKey("grpc") ? Yamls.at(pr, "grpc.port") : Yamls.at(pr, "tcpSocket.port");
                    assertNotNull(port, c.get("name") + " " + probe + ": gRPC or TCP");
                    assertTrue(port instanceof String ? ports.containsKey(port) : ports.containsValue(port),
                            c.get("name") + " " + probe + " on " + port + ", not a port it serves " + ports);
                }
                if (launcher(c) == Launcher.FABRIC_MANAGER) {
                    // native gRPC probes on the admin port: the health service ManagerHealth serves there
                    assertEquals(ports.get("admin"), Yamls.at(c, "readinessProbe.grpc.port"));
                    assertEquals(null, Yamls.at(c, "readinessProbe.grpc.service"), "readiness: the server as a whole, following the state");
                    assertEquals("fabric.v1.Admin", Yamls.at(c, "livenessProbe.grpc.service"));
                    assertEquals("fabric.v1.Admin", Yamls.at(c, "startupProbe.grpc.service"));
                }
            }
        }
        for (Map<String, Object> svc : m.ofKind("Service")) {
            Map<String, Object> selector = Yamls.map(svc, "spec.selector");
            Map<String, Integer> target = m.workloads().stream()
                    .filter(w -> Yamls.map(w, "spec.template.metadata.labels").entrySet().containsAll(selector.entrySet()))
                    .map(w -> ports(containers(w).get(0))).findFirst()
                    .orElseThrow(() -> new AssertionError("Service " + Yamls.str(svc, "metadata.name") + " selects no workload"));
            for (Map<String, Object> port : Yamls.list(svc, "spec.ports")) {
                Object t = port.get("targetPort");
                assertTrue(target.containsKey(t) && target.get(t).equals(port.get("port")),
                        Yamls.str(svc, "metadata.name") + " " + port + ": its target is a port the workload serves, at the same number");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("valueSets")
    void loopbackIsLeftOnlyByExplicitFlagsAndContainersAreLockedDown(ValueSet set) {
        Manifests m = Chart.render(set.values());
        for (Map<String, Object> w : m.workloads()) {
            assertEquals(true, Yamls.at(w, "spec.template.spec.securityContext.runAsNonRoot"), Yamls.str(w, "metadata.name"));
            assertEquals(false, Yamls.at(w, "spec.template.spec.automountServiceAccountToken"));
            for (Map<String, Object> c : containers(w)) {
                Launcher.Parsed p = parsed(c);
                assertEquals(true, Yamls.at(c, "securityContext.readOnlyRootFilesystem"), c.get("name") + "");
                assertEquals(false, Yamls.at(c, "securityContext.allowPrivilegeEscalation"));
                assertEquals(List.of("ALL"), Yamls.at(c, "securityContext.capabilities.drop"));
                assertTrue(Yamls.list(c, "volumeMounts").stream().anyMatch(v -> "/tmp".equals(v.get("mountPath"))),
                        "a writable /tmp for the JVM under a read-only root");
                assertNotNull(Yamls.at(c, "resources.requests.memory"));
                assertNotNull(Yamls.at(c, "resources.limits.memory"));
                switch (launcher(c)) {
                    case FABRIC_MANAGER -> {
                        assertEquals("0.0.0.0", p.value("--metrics-address"));
                        // the daemon binds loopback by default: the probes and the Service need the pod's address
                        assertEquals("0.0.0.0", p.value("--admin-address"), "the kubelet's gRPC probes reach the admin port on the pod's address");
                    }
                    case EMULATOR -> {
                        assertEquals("0.0.0.0", p.value("--management-address"));
                        assertEquals(Chart.RELEASE + "-fabriclab-fabric." + Chart.NAMESPACE + ".svc", p.value("--advertise-host"),
                                "the endpoints name the emulator's Service");
                    }
                    case SWITCH_AGENT -> {
                        assertEquals("0.0.0.0", p.value("--address"));
                        assertEquals("pod-0." + Chart.RELEASE + "-fabriclab-switch." + Chart.NAMESPACE + ".svc", p.value("--advertise-host"),
                                "the endpoint names the pod through the headless Service");
                    }
                }
            }
        }
    }

    @Test
    void embeddedRunsTheFabricInTheManager() {
        Manifests m = Chart.render(values());
        assertEquals(1, m.workloads().size(), m.names().toString());
        Map<String, Object> manager = m.get("StatefulSet", "lab-fabriclab-manager");
        assertEquals(1, Yamls.at(manager, "spec.replicas"));
        Launcher.Parsed p = parsed(containers(manager).get(0));
        assertEquals("fat-tree:k=4,levels=2", p.value("--emulate"));
        assertEquals("/var/lib/fabriclab", p.value("--state-dir"));
        assertEquals("state", Yamls.str(Yamls.list(manager, "spec.volumeClaimTemplates").get(0), "metadata.name"),
                "the state directory on a claim of its own");
        assertTrue(Yamls.list(containers(manager).get(0), "volumeMounts").stream()
                .anyMatch(v -> v.get("name").equals("state") && v.get("mountPath").equals(p.value("--state-dir"))));
    }

    @Test
    void anAdminTokenAndTlsComeFromSecretsMountedWhereTheFlagsSay() {
        Manifests m = Chart.render(values("security.adminTokenSecret", "lab-admin-token", "security.tlsSecret", "lab-admin-tls"));
        Map<String, Object> manager = m.get("StatefulSet", "lab-fabriclab-manager");
        Map<String, Object> c = containers(manager).get(0);
        Launcher.Parsed p = parsed(c);
        Map<String, String> secretOfVolume = new LinkedHashMap<>();
        for (Map<String, Object> v : Yamls.list(manager, "spec.template.spec.volumes")) {
            if (Yamls.at(v, "secret.secretName") != null) {
                secretOfVolume.put((String) v.get("name"), (String) Yamls.at(v, "secret.secretName"));
            }
        }
        for (String[] flag : new String[][] {{"--admin-token-file", "lab-admin-token"}, {"--admin-tls-cert", "lab-admin-tls"},
                {"--admin-tls-key", "lab-admin-tls"}}) {
            String file = p.value(flag[0]);
            assertTrue(Yamls.list(c, "volumeMounts").stream().anyMatch(v -> file.startsWith(v.get("mountPath") + "/")
                    && flag[1].equals(secretOfVolume.get(v.get("name"))) && Boolean.TRUE.equals(v.get("readOnly"))),
                    flag[0] + " " + file + " is in a read-only mount of Secret " + flag[1]);
        }
        // the kubelet's gRPC probes speak plain text: with TLS they check the port's socket
        assertNotNull(Yamls.at(c, "readinessProbe.tcpSocket.port"));
        assertEquals(null, Yamls.at(c, "readinessProbe.grpc"));
        assertNotNull(Yamls.at(containers(Chart.render(values()).get("StatefulSet", "lab-fabriclab-manager")).get(0), "readinessProbe.grpc.port"));
    }

    @Test
    void singlePodWithStandbysConnectsEveryManagerToTheEmulatorsService() {
        Manifests m = Chart.render(values("fabric.mode", "single-pod", "manager.standby.enabled", true, "manager.standby.count", 2,
                "manager.smPriority", 7));
        Map<String, Object> manager = m.get("StatefulSet", "lab-fabriclab-manager");
        assertEquals(3, Yamls.at(manager, "spec.replicas"), "the primary and two standbys");
        Launcher.Parsed p = parsed(containers(manager).get(0));
        assertEquals("7", p.value("--sm-priority"));
        Map<String, Object> service = m.get("Service", "lab-fabriclab-fabric");
        Map<String, Object> emulator = containers(m.get("Deployment", "lab-fabriclab-fabric")).get(0);
        assertEquals("lab-fabriclab-fabric.fab.svc:" + Yamls.list(service, "spec.ports").get(0).get("port"), p.value("--connect"),
                "HOST:PORT of the emulator's Service");
        assertEquals(parsed(emulator).value("--management-port"), Yamls.list(service, "spec.ports").get(0).get("port").toString());
        assertEquals(true, Yamls.at(m.get("Service", "lab-fabriclab-manager-metrics"), "spec.publishNotReadyAddresses"),
                "a standby's or a failed manager's fabric_state is still scraped");
        assertEquals(null, Yamls.at(m.get("Service", "lab-fabriclab-manager-admin"), "spec.publishNotReadyAddresses"),
                "admin calls go to the ready master only");
    }

    @Test
    void podPerSwitchRunsOnePodPerSwitchOfTheTopologyCabledByName() {
        String topology = "rlft:leaves=4,spines=2,hosts=2";
        Manifests m = Chart.render(values("fabric.mode", "pod-per-switch", "fabric.topology", topology, "fabric.switches.count", 6));
        Map<String, Object> switches = m.get("StatefulSet", "lab-fabriclab-switch");
        assertEquals(Topologies.generate(topology).switchCount(), Yamls.at(switches, "spec.replicas"), "one pod per switch of the topology");
        assertEquals("lab-fabriclab-switch", Yamls.at(switches, "spec.serviceName"));
        Map<String, Object> headless = m.get("Service", "lab-fabriclab-switch");
        assertEquals("None", Yamls.at(headless, "spec.clusterIP"));
        assertEquals(true, Yamls.at(headless, "spec.publishNotReadyAddresses"), "names resolve while the switches cable each other");
        Launcher.Parsed sw = parsed(containers(switches).get(0));
        String podHosts = "lab-fabriclab-switch-{index}.lab-fabriclab-switch.fab.svc";
        assertEquals(podHosts, sw.value("--peers"), "pod K of the StatefulSet, through its headless Service");
        assertEquals("0", sw.value("--switch-index"), "the pod's index ($(POD_INDEX))");
        Map<String, Object> podIndex = Yamls.list(containers(switches).get(0), "env").stream()
                .filter(e -> e.get("name").equals("POD_INDEX")).findFirst().orElseThrow();
        assertEquals("metadata.labels['apps.kubernetes.io/pod-index']", Yamls.at(podIndex, "valueFrom.fieldRef.fieldPath"));
        Launcher.Parsed hosts = parsed(containers(m.get("Deployment", "lab-fabriclab-fabric")).get(0));
        assertEquals(podHosts + ":" + sw.value("--management-port") + ":" + sw.value("--data-port"), hosts.value("--switch-agents"));
        assertEquals(topology, hosts.value("--topology"));
        assertEquals(topology, sw.value("--topology"));
    }

    @Test
    void theDefaultSwitchCountIsTheDefaultTopologys() throws Exception {
        Map<String, Object> fabric = Yamls.map(Chart.yamlFile("values.yaml"), "fabric");
        Manifests m = Chart.render(values("fabric.mode", "pod-per-switch"));
        assertEquals(Topologies.generate((String) fabric.get("topology")).switchCount(),
                Yamls.at(m.get("StatefulSet", "lab-fabriclab-switch"), "spec.replicas"), "values.yaml's fabric.switches.count");
    }

    @Test
    void dashboardsAreConfigMapsForGrafanasSidecar() throws Exception {
        Manifests m = Chart.render(values());
        List<Path> files;
        try (var list = Files.list(Chart.dir().resolve("dashboards"))) {
            files = list.filter(f -> f.toString().endsWith(".json")).sorted().toList();
        }
        assertEquals(files.size(), m.ofKind("ConfigMap").size());
        for (Path f : files) {
            String name = f.getFileName().toString();
            Map<String, Object> cm = m.get("ConfigMap", "lab-fabriclab-dashboard-" + name.replace(".json", ""));
            assertEquals("1", Yamls.map(cm, "metadata.labels").get("grafana_dashboard"));
            assertEquals(Files.readString(f).strip(), Yamls.map(cm, "data").get(name).toString().strip(), name + " as it is");
        }
        assertTrue(Chart.render(values("dashboards.enabled", false)).ofKind("ConfigMap").isEmpty());
    }

    @Test
    void serviceMonitorAndRulesAreOptionalAndCarryTheOperatorsLabels() throws Exception {
        assertTrue(Chart.render(values()).ofKind("ServiceMonitor").isEmpty());
        assertTrue(Chart.render(values()).ofKind("PrometheusRule").isEmpty());
        Manifests m = Chart.render(values("serviceMonitor.enabled", true, "serviceMonitor.labels.release", "kube-prometheus",
                "prometheusRule.enabled", true, "prometheusRule.labels.role", "alert-rules"));
        Map<String, Object> sm = m.ofKind("ServiceMonitor").get(0);
        assertEquals("kube-prometheus", Yamls.map(sm, "metadata.labels").get("release"));
        Map<String, Object> selector = Yamls.map(sm, "spec.selector.matchLabels");
        List<Map<String, Object>> selected = m.ofKind("Service").stream()
                .filter(s -> Yamls.map(s, "metadata.labels").entrySet().containsAll(selector.entrySet())).toList();
        assertEquals(List.of("lab-fabriclab-manager-metrics"), selected.stream().map(s -> Yamls.str(s, "metadata.name")).toList());
        String port = Yamls.str(Yamls.list(sm, "spec.endpoints").get(0), "port");
        assertTrue(Yamls.list(selected.get(0), "spec.ports").stream().anyMatch(p -> port.equals(p.get("name"))));
        assertEquals("/metrics", Yamls.str(Yamls.list(sm, "spec.endpoints").get(0), "path"));

        Map<String, Object> rule = m.ofKind("PrometheusRule").get(0);
        assertEquals("alert-rules", Yamls.map(rule, "metadata.labels").get("role"));
        assertEquals(Chart.yamlFile("rules/fabriclab-rules.yaml").get("groups"), Yamls.at(rule, "spec.groups"),
                "the rules of rules/fabriclab-rules.yaml, as promtool tested them");
    }

    @Test
    void theSchemaRefusesBadValuesWithItsMessage() {
        Map<Map<String, Object>, String> bad = new LinkedHashMap<>();
        bad.put(values("fabric.mode", "mesh"), "at '/fabric/mode': value must be one of 'embedded', 'single-pod', 'pod-per-switch'");
        bad.put(values("manager.topFlows", -1), "at '/manager/topFlows': minimum: got -1, want 0");
        bad.put(values("fabric.switches.count", 0), "at '/fabric/switches/count': minimum: got 0, want 1");
        bad.put(values("manager.adminPort", "admin"), "at '/manager/adminPort': got string, want integer");
        bad.put(values("manager.smPriority", 16), "at '/manager/smPriority': maximum: got 16, want 15");
        bad.put(values("fabric.linkLatency", "5"), "at '/fabric/linkLatency'");
        bad.put(values("fabric.trafficGbps", 0), "at '/fabric/trafficGbps'");
        bad.put(values("manager.enigne", "updn"), "additional properties 'enigne' not allowed");
        bad.put(values("fabric.timeDilation", "fast"), "at '/fabric/timeDilation'");
        bad.put(values("fabric.topology", "fat_tree:k=4"), "at '/fabric/topology': 'fat_tree:k=4' does not match pattern");
        bad.put(values("fabric.linkGbps", "0.0"), "at '/fabric/linkGbps'");
        List<String> failures = new ArrayList<>();
        bad.forEach((v, message) -> {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> Chart.render(v), v.toString());
            if (!e.getMessage().contains("values don't meet the specifications of the schema") || !e.getMessage().contains(message)) {
                failures.add(v + ": expected the schema's '" + message + "' in: " + e.getMessage());
            }
        });
        assertTrue(failures.isEmpty(), String.join("\n", failures));
    }

    @Test
    void whatThisVersionCannotDoIsRefusedWithTheReason() {
        Map<Map<String, Object>, String> refused = new LinkedHashMap<>();
        refused.put(values("manager.standby.enabled", true), "manager.standby.enabled needs fabric.mode single-pod or pod-per-switch");
        refused.put(values("fabric.topology", "file:/data/lab.net"), "a file: topology needs the file inside the image");
        refused.put(values("manager.adminPort", 9464), "manager.adminPort and manager.metricsPort are both 9464");
        refused.put(values("security.adminAddress", "127.0.0.1"), "security.adminAddress 127.0.0.1 is loopback: the kubelet's probes");
        refused.put(values("fabric.mode", "pod-per-switch", "fabric.switches.dataPort", 50100),
                "fabric.switches.managementPort and fabric.switches.dataPort are both 50100");
        refused.put(values("fabric.trafficGbps", "1.5", "fabric.linkGbps", 1), "fabric.trafficGbps 1.5 is above fabric.linkGbps 1");
        refused.forEach((v, message) -> {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> Chart.render(v), v.toString());
            assertTrue(e.getMessage().contains(message), e.getMessage());
        });
    }
}
