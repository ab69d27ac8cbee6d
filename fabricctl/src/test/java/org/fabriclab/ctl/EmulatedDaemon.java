package org.fabriclab.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.fabriclab.cli.Cli;
import org.fabriclab.manager.FabricManager;
import org.fabriclab.manager.FabricManagerMain;

/**
 * {@code fabric-manager}'s real command line run in this JVM, as {@code bin/fabric-manager} runs it
 * (with {@code --emulate}, its emulated fabric too), once its first sweep is done; closing it ends
 * it as Ctrl-C does, and it must then exit 0. What the tests of the daemon verbs talk to over the
 * real admin gRPC.
 */
final class EmulatedDaemon implements AutoCloseable {
    private final FabricManagerMain.Running running;
    private final CompletableFuture<Integer> exit;
    private final StringWriter err;

    private EmulatedDaemon(FabricManagerMain.Running running, CompletableFuture<Integer> exit, StringWriter err) {
        this.running = running;
        this.exit = exit;
        this.err = err;
    }

    /** The daemon of command line {@code args} (give {@code --admin-port 0 --metrics-port 0 --state-dir DIR}), up. */
    static EmulatedDaemon start(String... args) throws Exception {
        CompletableFuture<FabricManagerMain.Running> up = new CompletableFuture<>();
        StringWriter err = new StringWriter();
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> Cli.execute(new FabricManagerMain().onStarted(up::complete),
                args, new PrintWriter(new StringWriter(), true), new PrintWriter(err, true)));
        FabricManagerMain.Running daemon = CompletableFuture.anyOf(up, exit).thenApply(x -> up.getNow(null)).get(120, TimeUnit.SECONDS);
        assertNotNull(daemon, "the daemon ended before it was up: " + err);
        return new EmulatedDaemon(daemon, exit, err);
    }

    FabricManagerMain.Running running() {
        return running;
    }

    FabricManager manager() {
        return running.manager();
    }

    /** {@code --server}'s value. */
    String server() {
        return "localhost:" + running.adminPort();
    }

    @Override
    public void close() throws Exception {
        running.stop().run();
        assertEquals(0, exit.get(60, TimeUnit.SECONDS), err.toString());
    }
}
