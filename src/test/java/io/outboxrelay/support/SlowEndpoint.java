package io.outboxrelay.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A destination that takes its time: a YAML route in a routes directory of its own that waits before it sends each
 * event to its Kafka topic, as a slow broker would. A relay uses it with outbox.endpoint=direct:slow-kafka and
 * outbox.routes-dir set to {@link #routesDir()}.
 */
public final class SlowEndpoint {

    public static final String URI = "direct:slow-kafka";

    private final Path routesDir;

    private SlowEndpoint(Path routesDir) {
        this.routesDir = routesDir;
    }

    public static SlowEndpoint delayingEachEvent(long millis) {
        try {
            Path dir = Files.createTempDirectory(Files.createDirectories(Path.of("target")), "slow-endpoint");
            Files.writeString(dir.resolve("slow-kafka.camel.yaml"), """
                    - route:
                        id: slow-kafka
                        from:
                          uri: direct:slow-kafka
                          steps:
                            - delay:
                                constant: "%d"
                            # the record key, which the relay sets only for a kafka: outbox.endpoint \
                    (KafkaConstants.KEY)
                            - setHeader:
                                name: kafka.KEY
                                simple: "${header.ce_subject}"
                            - toD:
                                uri: "kafka:outbox.event.${header.ce_aggregatetype}"
                    """.formatted(millis));
            return new SlowEndpoint(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path routesDir() {
        return routesDir;
    }

    /** The test relay settings, sending through this slow route. */
    public Map<String, String> settings(TestDatabase db, String instanceId) {
        Map<String, String> s = RelayInstance.settings(db, URI, SharedKafka.broker().bootstrapServers());
        s.put("outbox.routes-dir", routesDir.toString());
        s.put("outbox.instance-id", instanceId);
        return s;
    }
}
