package org.fabriclab.manager;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.sun.management.OperatingSystemMXBean;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.zip.GZIPOutputStream;

/**
 * Serves the Prometheus exposition at {@code /metrics} (JDK HTTP server, {@value #THREADS} request
 * threads, so that a slow answer of the fabric view on a large fabric does not hold up a scrape), streamed
 * as it is written (chunked: a large fabric's exposition is never held as one string and one byte
 * array), gzipped when the scraper accepts it, as Prometheus does. Binds the loopback address
 * unless told otherwise: the exposition names every node of the fabric.
 *
 * <p>Timeouts: the JDK server reads a request on a request thread, so a client that opens a
 * connection and stops half-way through its request (or never reads its answer) held that thread
 * for good, and {@value #THREADS} such clients stopped {@code /metrics} for everyone. A request must
 * arrive within {@value #REQUEST_SECONDS} s and an answer be taken within {@value #RESPONSE_SECONDS} s,
 * else the server closes the connection and the thread serves others (the JDK server's own
 * {@code sun.net.httpserver.maxReqTime} and {@code maxRspTime}, set here unless the JVM was given
 * them, before the server's classes read them; checked every second).
 */
public final class MetricsServer implements AutoCloseable {
    private static final String TEXT_FORMAT = "text/plain; version=0.0.4; charset=utf-8";
    /** Requests served at once: a scrape and a fabric view's poll, or two browsers. */
    static final int THREADS = 2;
    /** Seconds a request's line and headers may take to arrive (Prometheus sends them in one packet). */
    static final int REQUEST_SECONDS = 5;
    /** Seconds an answer may take to be taken (the 18-ary 3-tree's 19 MB: 0.6 s typical, 2.4 s seen at load 9). */
    static final int RESPONSE_SECONDS = 60;

    static {
        // read once, when the JDK server's configuration class loads: this class is loaded before any server is made
        if (System.getProperty("sun.net.httpserver.maxReqTime") == null) {
            System.setProperty("sun.net.httpserver.maxReqTime", Integer.toString(REQUEST_SECONDS));
        }
        if (System.getProperty("sun.net.httpserver.maxRspTime") == null) {
            System.setProperty("sun.net.httpserver.maxRspTime", Integer.toString(RESPONSE_SECONDS));
        }
    }
    private final HttpServer server;
    private final ExecutorService requests = Executors.newFixedThreadPool(THREADS, r -> {
        Thread t = new Thread(r, "metrics-http");
        t.setDaemon(true);
        return t;
    });

    /**
     * The daemon's registry, with the JVM and process binders (memory, GC, threads, classes, CPU,
     * uptime, file descriptors). Two of Micrometer's names are not Prometheus's and {@code promtool
     * check metrics} refuses them: {@code process_cpu_time_ns_total} (an abbreviated unit) is
     * exported as {@code process_cpu_seconds_total}, as Prometheus's own clients name it, and
     * {@code system_cpu_count} (a {@code _count} suffix on a gauge) is left out. The GC binder
     * listens for as long as the JVM runs.
     */
    public static PrometheusMeterRegistry newRegistry() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.config().meterFilter(MeterFilter.deny(id -> id.getName().equals("process.cpu.time") || id.getName().equals("system.cpu.count")));
        for (MeterBinder b : List.of(new JvmMemoryMetrics(), new JvmGcMetrics(), new JvmThreadMetrics(), new ClassLoaderMetrics(),
                new ProcessorMetrics(), new UptimeMetrics(), new FileDescriptorMetrics())) {
            b.bindTo(registry);
        }
        if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os && os.getProcessCpuTime() >= 0) {
            FunctionCounter.builder("process.cpu", os, o -> o.getProcessCpuTime() / 1e9).baseUnit("seconds")
                    .description("CPU time the daemon's process used").register(registry);
        }
        return registry;
    }

    /** On the loopback address. */
    public MetricsServer(PrometheusMeterRegistry registry, int port) throws IOException {
        this(registry, InetAddress.getLoopbackAddress(), port);
    }

    public MetricsServer(PrometheusMeterRegistry registry, InetAddress address, int port) throws IOException {
        server = HttpServer.create(new InetSocketAddress(address, port), 0);
        server.createContext("/metrics", ex -> {
            String accept = ex.getRequestHeaders().getFirst("Accept-Encoding");
            boolean gzip = accept != null && accept.contains("gzip");
            ex.getResponseHeaders().add("Content-Type", TEXT_FORMAT);
            if (gzip) {
                ex.getResponseHeaders().add("Content-Encoding", "gzip");
            }
            ex.sendResponseHeaders(200, 0);
            try (OutputStream body = ex.getResponseBody(); OutputStream o = gzip ? new GZIPOutputStream(body, 1 << 16) : new BufferedOutputStream(body, 1 << 16)) {
                registry.scrape(o, TEXT_FORMAT);
            }
        });
        server.setExecutor(requests);
        server.start();
    }

    /** Serves {@code handler} under {@code path} too (the fabric view at {@code /}). */
    public void serve(String path, HttpHandler handler) {
        server.createContext(path, handler);
    }

    /** The address it listens on. */
    public InetAddress address() {
        return server.getAddress().getAddress();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        requests.shutdownNow();
    }
}
