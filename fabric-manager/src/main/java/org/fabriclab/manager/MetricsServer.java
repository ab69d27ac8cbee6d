package org.fabriclab.manager;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.zip.GZIPOutputStream;

/**
 * Serves the Prometheus exposition at {@code /metrics} (JDK HTTP server, one thread), streamed
 * as it is written (chunked: a large fabric's exposition is never held as one string and one byte
 * array), gzipped when the scraper accepts it, as Prometheus does. Binds the loopback address
 * unless told otherwise: the exposition names every node of the fabric.
 */
public final class MetricsServer implements AutoCloseable {
    private static final String TEXT_FORMAT = "text/plain; version=0.0.4; charset=utf-8";
    private final HttpServer server;

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
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
