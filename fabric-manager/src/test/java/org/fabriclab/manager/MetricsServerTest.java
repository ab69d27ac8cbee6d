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

/** The metrics server's own promises: loopback by default, and a scrape answered while another request is still being served. */
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
}
