package org.fabriclab.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleNameEndingWith;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.util.List;
import java.util.Timer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import org.fabriclab.agent.core.SwitchCore;
import org.fabriclab.bench.SwitchCoreBenchmark;
import org.fabriclab.cli.VersionProvider;
import org.fabriclab.ctl.FabricCtl;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.manager.FabricManager;
import org.fabriclab.proto.v1.ManagementGrpc;
import org.fabriclab.routing.fabric.Fabric;

/**
 * The design brief's rules (shared/ARCHITECTURE.md, "The one-way rule" and "One switch core, two
 * clocks"), held on the main classes of every module: the module order, no package cycles, no
 * threads in the routing library, no Netty or gRPC in the switch core. Each rule names the rule of
 * the brief it holds; a failure lists every offending dependency with its source line.
 */
@AnalyzeClasses(packages = "org.fabriclab", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    /** One class of each module: proof that every module's classes are on the class path and imported. */
    private static final List<Class<?>> ONE_CLASS_PER_MODULE = List.of(ManagementGrpc.class, Fabric.class, VersionProvider.class,
            SwitchCore.class, EmulatedFabric.class, FabricManager.class, FabricCtl.class, SwitchCoreBenchmark.class);

    @ArchTest
    static void everyModuleIsImported(JavaClasses classes) {
        for (Class<?> c : ONE_CLASS_PER_MODULE) {
            assertTrue(classes.contain(c), c.getName() + " was not imported: is its module a test dependency of architecture-tests?");
        }
    }

    /**
     * The one-way rule: proto and routing-engines depend on no module; the agent on proto, routing
     * and cli; the emulator on the agent besides; the manager on the emulator (the embedded
     * default) but not on the agent; fabricctl on proto, routing and cli only (no emulator, no
     * Netty); nothing on bench. Only the manager's main may name the agent's live-traffic types,
     * to configure the embedded fabric's hosts.
     */
    @ArchTest
    static final ArchRule MODULE_ORDER = layeredArchitecture().consideringOnlyDependenciesInAnyPackage("org.fabriclab..")
            .layer("proto").definedBy("org.fabriclab.proto..")
            .layer("routing-engines").definedBy("org.fabriclab.routing..")
            .layer("cli").definedBy("org.fabriclab.cli..")
            .layer("switch-agent").definedBy("org.fabriclab.agent..")
            .layer("emulator").definedBy("org.fabriclab.emulator..")
            .layer("fabric-manager").definedBy("org.fabriclab.manager..")
            .layer("fabricctl").definedBy("org.fabriclab.ctl..")
            .layer("bench").definedBy("org.fabriclab.bench..")
            .whereLayer("proto").mayNotAccessAnyLayer()
            .whereLayer("routing-engines").mayNotAccessAnyLayer()
            .whereLayer("cli").mayOnlyAccessLayers("routing-engines")
            .whereLayer("switch-agent").mayOnlyAccessLayers("proto", "routing-engines", "cli")
            .whereLayer("emulator").mayOnlyAccessLayers("switch-agent", "proto", "routing-engines", "cli")
            .whereLayer("fabric-manager").mayOnlyAccessLayers("emulator", "proto", "routing-engines", "cli")
            .whereLayer("fabricctl").mayOnlyAccessLayers("proto", "routing-engines", "cli")
            .whereLayer("bench").mayNotBeAccessedByAnyLayer()
            .ignoreDependency(resideInAPackage("org.fabriclab.manager").and(simpleNameEndingWith("Main")),
                    resideInAPackage("org.fabriclab.agent.link"));

    /** routing-engines is JDK only: no Netty, no gRPC, no logging, no other library. */
    @ArchTest
    static final ArchRule ROUTING_IS_JDK_ONLY = noClasses().that().resideInAPackage("org.fabriclab.routing..")
            .should().dependOnClassesThat().resideOutsideOfPackages("java..", "org.fabriclab.routing..")
            .because("routing-engines is a pure library: JDK only, by the one-way rule");

    /**
     * routing-engines starts no thread: no Thread made or started, no executor or pool made, no
     * parallel stream, no async stage on the common pool. Callers that want the work shared pass
     * an Executor (as RouteAnalyzer takes one).
     */
    @ArchTest
    static final ArchRule ROUTING_STARTS_NO_THREAD = noClasses().that().resideInAPackage("org.fabriclab.routing..")
            .should().callConstructorWhere(describe("a Thread's constructor",
                    c -> c.getTargetOwner().isAssignableTo(Thread.class)))
            .orShould().beAssignableTo(Thread.class)
            .orShould().callMethod(Thread.class, "start")
            .orShould().dependOnClassesThat().belongToAnyOf(Executors.class, ForkJoinPool.class, ThreadPoolExecutor.class,
                    ScheduledThreadPoolExecutor.class, Timer.class)
            .orShould().callMethodWhere(describe("a parallel stream", ArchitectureTest::parallelStream))
            .orShould().callMethodWhere(describe("an async CompletableFuture stage on the common pool", ArchitectureTest::asyncOnCommonPool))
            .because("routing-engines has no threads of its own, by the one-way rule; callers pass an Executor");

    /** The switch core is driven by both clocks, so it knows neither Netty nor gRPC nor the live plane. */
    @ArchTest
    static final ArchRule CORE_HAS_NO_NETTY_OR_GRPC = noClasses().that().resideInAPackage("org.fabriclab.agent.core..")
            .should().dependOnClassesThat().resideInAnyPackage("io.netty..", "io.grpc..", "org.fabriclab.agent.link..",
                    "org.fabriclab.agent.mgmt..")
            .because("one switch core, two clocks: the live agent and the simulator drive the same core");

    /** The simulator is the other clock: it drives the core, never the live data plane. */
    @ArchTest
    static final ArchRule SIMULATOR_HAS_NO_LIVE_PLANE = noClasses().that().resideInAPackage("org.fabriclab.emulator.sim..")
            .should().dependOnClassesThat().resideInAnyPackage("io.netty..", "io.grpc..", "org.fabriclab.agent.link..")
            .because("the simulator drives the switch and host cores in virtual time, not the Netty data plane");

    /** No package cycles, in any module or across them. */
    @ArchTest
    static final ArchRule NO_PACKAGE_CYCLES = slices().matching("org.fabriclab.(**)").should().beFreeOfCycles();

    // JDK types are stubs (archunit.properties), known by name only: matched by name.

    private static boolean parallelStream(JavaCall<?> call) {
        String name = call.getName();
        return (name.equals("parallel") || name.equals("parallelStream")) && call.getTargetOwner().getPackageName().startsWith("java.util");
    }

    private static boolean asyncOnCommonPool(JavaCall<?> call) {
        return call.getTargetOwner().isEquivalentTo(CompletableFuture.class) && call.getName().endsWith("Async")
                && call.getTarget().getRawParameterTypes().stream().noneMatch(t -> t.isEquivalentTo(Executor.class));
    }
}
