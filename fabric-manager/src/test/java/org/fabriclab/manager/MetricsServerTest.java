package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;

/**
 * The metrics server's own promises: loopback by default, a scrape answered while another request
 * is still being served, and while clients hold connections with half a request.
 */
class MetricsServerTest {
    @Test
    void bindsLoopbackUnlessToldOtherwise() throws Exception {
        try (MetricsServer server = new MetricsServer(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), 0)) {
            assertTrue(server.address().isLoopbackAddress(), server.address().toString());
        }
    }

    @Test
    void aScrapeIsAnsweredWhileAViewRequestIsStillBeingServed() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        HttpClient http = HttpClient.newHttpClient();
        try (MetricsServer server = new MetricsServer(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), InetAddress.getLoopbackAddress(), 0)) {
            server.serve("/slow", ex -> {
                entered.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                ex.sendResponseHeaders(204, -1);
                ex.close();
            });
            String base = "http://127.0.0.1:" + server.port();
            CompletableFuture<HttpResponse<Void>> slow = http.sendAsync(HttpRequest.newBuilder(URI.create(base + "/slow")).build(),
                    HttpResponse.BodyHandlers.discarding());
            entered.await();
            CompletableFuture<HttpResponse<String>> scrape = http.sendAsync(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            try {
                Waits.until("the scrape answered while /slow is still in its handler", scrape::isDone);
                assertEquals(200, scrape.join().statusCode());
                assertTrue(!slow.isDone(), "the slow request is still being served");
            } finally {
                release.countDown();
            }
            assertEquals(204, slow.join().statusCode());
        }
    }

    /**
     * More clients than request threads send half a request and stop (a half-open request held a
     * thread for good: two of them stopped /metrics for everyone); the server drops them after
     * {@link MetricsServer#REQUEST_SECONDS} and the scrape is answered.
     */
    @Test
    void halfOpenRequestsDoNotStopScrapes() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        try (MetricsServer server = new MetricsServer(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), InetAddress.getLoopbackAddress(), 0)) {
            java.util.List<java.net.Socket> stalled = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < MetricsServer.THREADS + 2; i++) {
                    java.net.Socket s = new java.net.Socket(InetAddress.getLoopbackAddress(), server.port());
                    s.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: x\r\nX-Half: ".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    s.getOutputStream().flush();
                    stalled.add(s);
                }
                CompletableFuture<HttpResponse<String>> scrape = http.sendAsync(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
                Waits.until("the scrape answered though " + stalled.size() + " clients stopped half-way through their requests", scrape::isDone);
                assertEquals(200, scrape.join().statusCode());
                for (java.net.Socket s : stalled) {
                    s.setSoTimeout((int) Waits.LIMIT.toMillis()); // a bound on the wait, as Waits has, not a measure
                    assertTrue(closedByPeer(s), "the server closed a stalled connection");
                }
            } finally {
                for (java.net.Socket s : stalled) {
                    s.close();
                }
            }
        }
    }

    /** Waits for the peer to close: an orderly end of stream, or a reset (it closed with our half request unread). */
    private static boolean closedByPeer(java.net.Socket s) throws java.io.IOException {
        try {
            return s.getInputStream().read() == -1;
        } catch (java.net.SocketException e) {
            return e.getMessage() != null && e.getMessage().contains("reset");
        }
    }
}
