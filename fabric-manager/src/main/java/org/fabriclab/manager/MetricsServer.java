package org.fabriclab.manager;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/** Serves the Prometheus exposition at {@code /metrics} (JDK HTTP server, one thread). */
public final class MetricsServer implements AutoCloseable {
    private final HttpServer server;

    public MetricsServer(PrometheusMeterRegistry registry, int port) throws IOException {
        server = HttpServer.create(new InetSocketAddress(port), 0);
        server.createContext("/metrics", ex -> {
            byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream o = ex.getResponseBody()) {
                o.write(body);
            }
        });
        server.start();
    }

    /** Serves {@code handler} under {@code path} too (the fabric view at {@code /}). */
    public void serve(String path, HttpHandler handler) {
        server.createContext(path, handler);
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
