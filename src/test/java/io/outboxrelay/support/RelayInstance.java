package io.outboxrelay.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.outboxrelay.OutboxRelay;
import org.apache.camel.CamelContext;
import org.apache.camel.component.micrometer.MicrometerConstants;
import org.apache.camel.main.BaseMainSupport;
import org.apache.camel.main.Main;
import org.apache.camel.main.MainListenerSupport;

/**
 * One relay, run in this JVM exactly as the jar runs it (same Main, application.properties and routes), with some
 * settings overridden; or another Camel Main run the same way. Several instances can run side by side on one table.
 */
public final class RelayInstance implements AutoCloseable {

    private final Main main;
    private final int managementPort;
    private final CompletableFuture<Void> started = new CompletableFuture<>();
    private final Thread thread;

    private RelayInstance(Main main, Map<String, String> settings) {
        try {
            managementPort = KafkaBroker.freePort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.main = main;
        Map<String, String> all = new HashMap<>(settings);
        all.putIfAbsent("camel.management.port", Integer.toString(managementPort));
        all.forEach(main::addOverrideProperty);
        main.addMainListener(new MainListenerSupport() {
            @Override
            public void afterStart(BaseMainSupport ignored) {
                started.complete(null);
            }
        });
        thread = new Thread(() -> {
            try {
                main.run();
            } catch (Exception e) {
                started.completeExceptionally(e);
            }
        }, "relay-" + settings.getOrDefault("outbox.instance-id", "test"));
        thread.start();
    }

    public static RelayInstance start(Map<String, String> settings) {
        return start(OutboxRelay.createMain(), settings);
    }

    /** Runs another Camel Main (e.g. one set up the way Camel K runs the relay's routes) the same way. */
    public static RelayInstance start(Main main, Map<String, String> settings) {
        RelayInstance relay = new RelayInstance(main, settings);
        try {
            relay.started.get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            relay.close();
            throw new IllegalStateException("relay did not start", e);
        }
        return relay;
    }

    /** The settings every test relay shares: its own database, a short poll delay, fast redeliveries. */
    public static Map<String, String> settings(TestDatabase db, String endpoint, String kafkaBrokers) {
        Map<String, String> s = new HashMap<>();
        s.put("outbox.db.url", db.url());
        s.put("outbox.db.user", db.user());
        s.put("outbox.endpoint", endpoint);
        s.put("camel.component.kafka.brokers", kafkaBrokers);
        s.put("outbox.poll-delay-ms", "50");
        s.put("outbox.redelivery.delay-ms", "10");
        s.put("outbox.routes-dir", "target/no-extra-routes");
        return s;
    }

    /**
     * A relay on the shared Kafka broker, a topic per aggregate type, for tests of what it reports: its backlog gauges
     * refresh every 200 ms and a failed event is FAILED at its first attempt.
     */
    public static Map<String, String> reportingSettings(TestDatabase db) {
        Map<String, String> s = settings(db, "kafka:outbox.event.${header.ce_aggregatetype}",
                SharedKafka.broker().bootstrapServers());
        s.put("outbox.metrics.refresh-ms", "200");
        s.put("outbox.max-attempts", "1");
        return s;
    }

    public CamelContext context() {
        return main.getCamelContext();
    }

    /** A counter of the relay's Micrometer registry (e.g. outbox.events.claimed), 0 when it has not counted yet. */
    public double counter(String name) {
        MeterRegistry registry = context().getRegistry()
                .lookupByNameAndType(MicrometerConstants.METRICS_REGISTRY_NAME, MeterRegistry.class);
        Counter counter = registry == null ? null : registry.find(name).counter();
        return counter == null ? 0 : counter.count();
    }

    public int managementPort() {
        return managementPort;
    }

    @Override
    public void close() {
        main.completed();
        try {
            thread.join(Duration.ofSeconds(60).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
