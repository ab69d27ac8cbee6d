package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.grpc.MethodDescriptor;
import io.grpc.protobuf.services.HealthStatusManager;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.SwitchTables;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.proto.v1.AdminGrpc;
import org.fabriclab.proto.v1.ManagementGrpc;
import org.fabriclab.routing.text.Excerpt;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18's "tested from a client that is not ours": Node's {@code @grpc/grpc-js}, with
 * {@code @grpc/proto-loader} reading the project's {@code .proto} files, sends malformed, huge and
 * out-of-range fields to every call of the agents' management service (a switch and an adapter of
 * an emulated fabric served over loopback TCP, as {@code emulator up} serves them) and of the
 * daemon's admin service (as {@code fabric-manager} serves it: {@link AdminServer} with a token),
 * and bytes that are no message to every method of both ({@code src/test/resources/node/
 * grpc-bad-input.js}). Every answer must be the code the script expects, with a reason of at most
 * 1,024 characters; the nodes' tables, ports and SMInfo and the manager's status must be what
 * they were. Skipped without {@code node} and the two packages ({@code .ci/run} installs them with
 * {@code npm ci} into {@code .ci/node-grpc}), unless {@code FABRICLAB_REQUIRE_NODE_GRPC} is set
 * (CI), where it fails instead.
 */
class NodeClientTest {
    private static final String TOKEN = "node-client-token-0123456789";

    /** The node_modules holding the two packages: {@code FABRICLAB_NODE_MODULES}, else the repository's {@code .ci/node-grpc}. */
    private static Path nodeModules() {
        String env = System.getenv("FABRICLAB_NODE_MODULES");
        return env != null ? Path.of(env) : Path.of("").toAbsolutePath().resolveSibling(".ci/node-grpc/node_modules");
    }

    /** Skips (or, with FABRICLAB_REQUIRE_NODE_GRPC, fails) unless node runs and the packages are there. */
    private static void assumeNodeGrpc(Path modules) throws InterruptedException {
        String missing = null;
        try {
            Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
            String v = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                missing = "node does not run (" + v + ")";
            }
        } catch (IOException e) {
            missing = "no node on the PATH";
        }
        for (String pkg : List.of("@grpc/grpc-js", "@grpc/proto-loader")) {
            if (missing == null && !Files.isDirectory(modules.resolve(pkg))) {
                missing = pkg + " is not in " + modules;
            }
        }
        if (missing != null) {
            String why = missing + "; .ci/run installs them (npm ci --prefix .ci/node-grpc)";
            if (System.getenv("FABRICLAB_REQUIRE_NODE_GRPC") != null) {
                throw new AssertionError("FABRICLAB_REQUIRE_NODE_GRPC is set, but " + why);
            }
            Assumptions.assumeTrue(false, why);
        }
    }

    /** What a refused call might have changed at a node: tables, ports and LIDs, SMInfo, source routes. */
    private static String state(ManagedNode n) {
        StringBuilder b = new StringBuilder(n.smInfo().toString());
        for (int p = 1; p <= n.identity().ports(); p++) {
            b.append(n.port(p));
        }
        if (n.isSwitch()) {
            SwitchTables t = n.tables().current();
            b.append(t.version()).append(t.lftTop()).append(t.arEnabled()).append(Arrays.toString(t.directionPorts()));
            for (int blk = 0; blk < 4; blk++) {
                b.append(Arrays.toString(t.block(blk)));
            }
        } else {
            b.append(Arrays.toString(n.sourceRouteTable()));
        }
        return b.toString();
    }

    private static String status(FabricManager m) {
        FabricManager.Snapshot s = m.snapshot();
        return s.state() + " v" + s.tableVersion() + " sweeps " + s.heavySweeps() + " chain " + s.engineChain() + " job '"
                + (s.outcome() == null ? "" : s.outcome().jobNodes()) + "'";
    }

    @Test
    void nodesGrpcClientGetsTheDocumentedCodeForEveryBadCallAndChangesNothing(@TempDir Path dir) throws Exception {
        Path modules = nodeModules();
        assumeNodeGrpc(modules);
        long key = 0x1234_5678_9abc_def0L;
        Path token = dir.resolve("token");
        Files.writeString(token, TOKEN + "\n");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
        EmulatedFabric.Options tcp = EmulatedFabric.Options.DEFAULTS.withManagementPort(-1);
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate("rlft:leaves=2,spines=1,hosts=1"), tcp);
             FabricManager manager = new FabricManager(fabric.endpoint("L0_H0"), "minhop", null, new SimpleMeterRegistry(),
                     new Mastership.Config(0xA, 0, key));
             PerfManager perf = new PerfManager(manager, new SimpleMeterRegistry(), 1000);
             AdminServer admin = AdminServer.start(AdminServer.Config.loopback(0).withTokenFile(token), new AdminService(manager, perf),
                     new HealthStatusManager().getHealthService())) {
            assertEquals(FabricManager.State.UP, manager.sweep().get(60, TimeUnit.SECONDS).state());
            ManagedNode sw = fabric.node("L0").management();
            ManagedNode ca = fabric.node("L0_H0").management();
            String before = state(sw) + state(ca) + status(manager);
            long violations = sw.mKeyViolations() + ca.mKeyViolations();

            String endpoint = fabric.tcpEndpoint("L0");
            JsonObject config = new JsonObject();
            config.addProperty("protoDir", Path.of("").toAbsolutePath().resolveSibling("proto/src/main/proto").toString());
            config.addProperty("management", "127.0.0.1:" + endpoint.substring(endpoint.lastIndexOf(':') + 1, endpoint.indexOf('/')));
            config.addProperty("switchAuthority", Long.toHexString(sw.identity().guid()));
            config.addProperty("caAuthority", Long.toHexString(ca.identity().guid()));
            config.addProperty("mKey", Long.toUnsignedString(key));
            config.addProperty("admin", "127.0.0.1:" + admin.port());
            config.addProperty("adminToken", TOKEN);
            Path configFile = dir.resolve("config.json");
            Files.writeString(configFile, config.toString());
            Path script = dir.resolve("grpc-bad-input.js");
            try (var in = NodeClientTest.class.getResourceAsStream("/node/grpc-bad-input.js")) {
                Files.write(script, in.readAllBytes());
            }
            Path out = dir.resolve("out.json");
            Path err = dir.resolve("err.txt");
            ProcessBuilder pb = new ProcessBuilder("node", script.toString(), configFile.toString()).redirectOutput(out.toFile())
                    .redirectError(err.toFile());
            pb.environment().put("NODE_PATH", modules.toString());
            Process node = pb.start();
            if (!node.waitFor(5, TimeUnit.MINUTES)) {
                node.destroyForcibly();
                throw new AssertionError("the Node client did not finish in 5 minutes: " + Files.readString(err));
            }
            assertEquals(0, node.exitValue(), "the Node client failed: " + Files.readString(err));
            JsonArray results = JsonParser.parseString(Files.readString(out)).getAsJsonArray();

            Set<String> reached = new TreeSet<>();
            List<String> wrong = new ArrayList<>();
            int denied = 0;
            for (JsonElement e : results) {
                JsonObject r = e.getAsJsonObject();
                String what = r.get("service").getAsString() + "." + r.get("method").getAsString() + " (" + r.get("name").getAsString() + ")";
                reached.add(r.get("service").getAsString() + "." + r.get("method").getAsString());
                int code = r.get("code").getAsInt();
                if (code != r.get("expected").getAsInt() || r.get("detailsLength").getAsInt() > Excerpt.MESSAGE
                        || (code != 0 && r.get("detailsLength").getAsInt() == 0)) {
                    wrong.add(what + ": expected code " + r.get("expected") + ", got " + r.get("codeName") + " with "
                            + r.get("detailsLength") + " characters: " + r.get("details").getAsString());
                }
                denied += r.get("service").getAsString().equals("Management") && code == 7 ? 1 : 0;
            }
            assertTrue(wrong.isEmpty(), results.size() + " calls, " + wrong.size() + " answered wrong:\n" + String.join("\n", wrong));
            Set<String> every = new TreeSet<>();
            for (MethodDescriptor<?, ?> m : ManagementGrpc.getServiceDescriptor().getMethods()) {
                every.add("Management." + m.getBareMethodName());
            }
            for (MethodDescriptor<?, ?> m : AdminGrpc.getServiceDescriptor().getMethods()) {
                every.add("Admin." + m.getBareMethodName());
            }
            every.removeAll(reached);
            assertTrue(every.isEmpty(), "methods the Node client never called: " + every);
            assertEquals(before, state(sw) + state(ca) + status(manager), "a refused call changed something");
            assertEquals(violations + denied, sw.mKeyViolations() + ca.mKeyViolations(), "every wrong key counted at its node");
        }
    }
}
