package io.outboxrelay.tracing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import io.opentelemetry.proto.trace.v1.Status.StatusCode;
import io.outboxrelay.support.EmbeddedArtemis;
import io.outboxrelay.support.LocalRabbitMq;
import io.outboxrelay.support.OtlpReceiver;
import io.outboxrelay.support.OtlpReceiver.ReceivedSpan;
import io.outboxrelay.support.RelayProcess;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import jakarta.jms.Connection;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Tracing as an operator turns it on: the jar, OpenTelemetry's own environment (OTEL_*), spans exported over OTLP/HTTP
 * to a receiver that decodes them. Kafka (with the inbox template consuming in the same trace), JMS (Artemis) and
 * AMQP (RabbitMQ, with failed attempts); and off: no OTEL_* variable, no span, no exporter thread, the row's
 * traceparent passed through as it was.
 */
class TracingIT {

    /** A writer's span, as its tracing would put it in the row's headers. */
    private static final String WRITER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String WRITER_SPAN = "00f067aa0ba902b7";
    private static final String WRITER_HEADERS = "{\"traceparent\": \"00-" + WRITER_TRACE + "-" + WRITER_SPAN
            + "-01\", \"tracestate\": \"writer=1\", \"tenant\": \"acme\"}";

    private static OtlpReceiver receiver;
    private TestDatabase db;
    private RelayProcess relay;

    @BeforeAll
    static void startReceiver() {
        receiver = OtlpReceiver.start();
    }

    @AfterAll
    static void stopReceiver() {
        receiver.close();
    }

    @BeforeEach
    void createDatabase() {
        db = TestDatabase.create();
    }

    @AfterEach
    void stop() {
        if (relay != null) {
            relay.terminate();
            relay.waitForExit(Duration.ofSeconds(60));
        }
        db.close();
    }

    @Test
    void kafkaSendSpansContinueTheWritersTraceAndTheInboxContinuesTheirs() throws Exception {
        String type = "traced" + suffix();
        String topic = "outbox.event." + type;
        String service = "relay-" + type;
        Path routes = Files.createTempDirectory(Files.createDirectories(Path.of("target")), "tracing-routes");
        Files.writeString(routes.resolve("inbox.camel.yaml"), """
                - templatedRoute:
                    routeTemplateRef: postgresql-inbox
                    routeId: traced-inbox
                    parameters:
                      - name: name
                        value: traced-consumer
                      - name: from
                        value: "kafka:%s?groupId=traced-consumer&autoOffsetReset=earliest&breakOnFirstError=true"
                      - name: handler
                        value: direct:apply
                - route:
                    id: apply
                    from:
                      uri: direct:apply
                      steps:
                        - log: "applied ${header.ce_id}"
                """.formatted(topic));
        Map<String, String> env = relayEnvironment(service, "kafka:outbox.event.${header.ce_aggregatetype}");
        env.put("OUTBOX_ROUTES_DIR", routes.toString());
        relay = start(env);
        assertTrue(threadDump(relay).contains("BatchSpanProcessor"), "tracing on: the SDK's exporter runs");

        String traced = insert(type, WRITER_HEADERS);
        String untraced = insert(type, null);
        awaitPublished(2);
        Map<String, ConsumerRecord<String, byte[]>> records = new HashMap<>();
        SharedKafka.read(topic, 2, Duration.ofSeconds(30)).forEach(r -> records.put(ceId(r), r));

        List<ReceivedSpan> spans = awaitSpans(service, 4);
        ReceivedSpan send = only(spans, SpanKind.SPAN_KIND_PRODUCER, traced);
        assertEquals(WRITER_TRACE, send.traceId(), "the writer's trace");
        assertEquals(WRITER_SPAN, send.parentSpanId(), "child of the writer's span");
        assertEquals("send " + topic, send.name());
        assertEquals("kafka", send.attributes().get("messaging.system"));
        assertEquals(topic, send.attributes().get("messaging.destination.name"));
        assertNotNull(send.attributes().get("messaging.destination.partition.id"));
        assertNotNull(send.attributes().get("messaging.kafka.offset"));
        assertTrue((Long) send.attributes().get("outbox.event.wait_ms") >= 0);
        assertEquals(StatusCode.STATUS_CODE_UNSET, send.status());
        Map<String, String> tracedHeaders = SharedKafka.headers(records.get(traced));
        assertTraceparent(WRITER_TRACE, send.spanId(), tracedHeaders.get("traceparent"));
        assertEquals("writer=1", tracedHeaders.get("tracestate"));
        assertEquals("acme", tracedHeaders.get("tenant"));

        ReceivedSpan rootSend = only(spans, SpanKind.SPAN_KIND_PRODUCER, untraced);
        assertEquals("", rootSend.parentSpanId(), "no traceparent in the row: a new trace");
        assertNotEquals(WRITER_TRACE, rootSend.traceId());
        assertTraceparent(rootSend.traceId(), rootSend.spanId(),
                SharedKafka.headers(records.get(untraced)).get("traceparent"));

        ReceivedSpan process = only(spans, SpanKind.SPAN_KIND_CONSUMER, traced);
        assertEquals(WRITER_TRACE, process.traceId(), "the consumer's span is in the writer's trace");
        assertEquals(send.spanId(), process.parentSpanId(), "child of the relay's send");
        assertEquals("process " + topic, process.name());
        assertEquals(false, process.attributes().get("outbox.inbox.duplicate"));
        assertEquals("traced-consumer", process.attributes().get("outbox.inbox.consumer"));
        assertEquals(send.spanId(), only(spans, SpanKind.SPAN_KIND_PRODUCER, traced).spanId());
        assertEquals(rootSend.spanId(), only(spans, SpanKind.SPAN_KIND_CONSUMER, untraced).parentSpanId());

        // the same message again (a redelivery, a relay that sent it twice): dropped by the inbox, a span too
        try (KafkaProducer<String, byte[]> producer = producer()) {
            ConsumerRecord<String, byte[]> original = records.get(traced);
            ProducerRecord<String, byte[]> copy = new ProducerRecord<>(topic, original.key(), original.value());
            original.headers().forEach(h -> copy.headers().add(h));
            producer.send(copy).get(30, TimeUnit.SECONDS);
        }
        List<ReceivedSpan> processed = await().atMost(Duration.ofSeconds(30)).until(
                () -> spans(service, SpanKind.SPAN_KIND_CONSUMER, traced), list -> list.size() == 2);
        ReceivedSpan duplicate = processed.stream()
                .filter(s -> Boolean.TRUE.equals(s.attributes().get("outbox.inbox.duplicate"))).findFirst()
                .orElseThrow(() -> new AssertionError("no span marked duplicate: " + processed));
        assertEquals(WRITER_TRACE, duplicate.traceId());
        assertEquals(send.spanId(), duplicate.parentSpanId());
        assertEquals(1, spans(service, SpanKind.SPAN_KIND_PRODUCER, traced).size(), "one attempt, one span");
    }

    @Test
    void jmsSendSpanIsTheMessagesTraceparent() throws Exception {
        try (EmbeddedArtemis artemis = EmbeddedArtemis.start()) {
            String queue = "traced-" + suffix();
            String service = "relay-" + queue;
            Map<String, String> env = relayEnvironment(service, "jms:queue:" + queue);
            env.put("OUTBOX_JMS_BROKER_URL", artemis.url());
            relay = start(env);
            String id = insert("order", WRITER_HEADERS);
            awaitPublished(1);

            ReceivedSpan send = only(awaitSpans(service, 1), SpanKind.SPAN_KIND_PRODUCER, id);
            assertEquals(WRITER_TRACE, send.traceId());
            assertEquals(WRITER_SPAN, send.parentSpanId());
            assertEquals("send " + queue, send.name());
            assertEquals("jms", send.attributes().get("messaging.system"));
            assertEquals(queue, send.attributes().get("messaging.destination.name"));
            try (Connection connection = new ActiveMQConnectionFactory(artemis.url()).createConnection()) {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageConsumer consumer = session.createConsumer(session.createQueue(queue));
                Message message = consumer.receive(10_000);
                assertNotNull(message);
                assertEquals(id, message.getStringProperty("ce_id"));
                assertTraceparent(WRITER_TRACE, send.spanId(), message.getStringProperty("traceparent"));
            }
        }
    }

    @Test
    void amqpSendSpansAndAFailingEventsAttemptsAreErrorSpans() throws Exception {
        LocalRabbitMq.enableAmqp10();
        String queue = "traced-" + suffix();
        String full = "full-" + queue;
        LocalRabbitMq.declareDurableQueue(queue);
        // a queue that refuses every message
        LocalRabbitMq.declareDurableQueue(full, "{\"x-max-length\": 0, \"x-overflow\": \"reject-publish\"}");
        try {
            String service = "relay-" + queue;
            // the aggregate type names the queue
            Map<String, String> env = relayEnvironment(service, "amqp:queue:${header.ce_aggregatetype}");
            env.put("OUTBOX_AMQP_BROKER_URL", LocalRabbitMq.RELAY_URL);
            env.put("OUTBOX_MAX_ATTEMPTS", "2");
            env.put("OUTBOX_REDELIVERY_MAXIMUM_REDELIVERIES", "1");
            env.put("OUTBOX_BACKOFF_INITIAL", "PT1S");
            relay = start(env);
            // the refused event first, alone: RabbitMQ answers a publish refused by a full queue by resetting the
            // AMQP connection, which fails every send in flight on it (a healthy event sent beside it in the same
            // claim counts an attempt too, and with two attempts could end FAILED as well)
            String refused = insert(full, WRITER_HEADERS);
            await().atMost(Duration.ofSeconds(60)).until(() -> db.count(
                    "SELECT count(*) FROM outbox WHERE id = ?::uuid AND status = 'FAILED'", refused) == 1);
            String sent = insert(queue, WRITER_HEADERS);
            awaitPublished(1);

            ReceivedSpan send = only(awaitSpans(service, 5), SpanKind.SPAN_KIND_PRODUCER, sent);
            assertEquals(WRITER_TRACE, send.traceId());
            assertEquals(WRITER_SPAN, send.parentSpanId());
            assertEquals("amqp", send.attributes().get("messaging.system"));
            assertEquals("send " + queue, send.name());
            List<LocalRabbitMq.Delivery> deliveries = LocalRabbitMq.consume(queue, 1, Duration.ofSeconds(10));
            assertTraceparent(WRITER_TRACE, send.spanId(), deliveries.get(0).properties().get("traceparent"));

            // two attempts (max-attempts), each a send and one redelivery: four spans, all ERROR, all children of
            // the writer's span, each with its exception
            // (and no more: the count holds for half a second after the row became FAILED)
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(30)).until(
                    () -> spans(service, SpanKind.SPAN_KIND_PRODUCER, refused).size() == 4);
            List<ReceivedSpan> failed = spans(service, SpanKind.SPAN_KIND_PRODUCER, refused);
            assertEquals(4, failed.size(), "a span per attempt: " + failed);
            for (ReceivedSpan attempt : failed) {
                assertEquals(StatusCode.STATUS_CODE_ERROR, attempt.status());
                assertTrue(attempt.eventNames().contains("exception"), attempt.toString());
                assertEquals(WRITER_TRACE, attempt.traceId());
                assertEquals(WRITER_SPAN, attempt.parentSpanId(), "every attempt continues the writer's span");
            }
            assertEquals(4, failed.stream().map(ReceivedSpan::spanId).distinct().count());
        } finally {
            LocalRabbitMq.deleteQueue(queue);
            LocalRabbitMq.deleteQueue(full);
        }
    }

    @Test
    void offWithoutOpenTelemetrysEnvironment() throws Exception {
        String type = "untraced" + suffix();
        Map<String, String> env = relayEnvironment(null, "kafka:outbox.event.${header.ce_aggregatetype}");
        relay = start(env);
        String id = insert(type, WRITER_HEADERS);
        awaitPublished(1);
        ConsumerRecord<String, byte[]> record = SharedKafka.read("outbox.event." + type, 1, Duration.ofSeconds(30))
                .get(0);
        assertEquals(id, ceId(record));
        assertEquals("00-" + WRITER_TRACE + "-" + WRITER_SPAN + "-01", SharedKafka.headers(record).get("traceparent"),
                "the row's traceparent, unchanged");
        assertEquals("writer=1", SharedKafka.headers(record).get("tracestate"));
        String threads = threadDump(relay);
        assertFalse(threads.contains("BatchSpanProcessor"), threads);
        assertFalse(threads.contains("OkHttp"), threads);
        assertFalse(relay.output().contains("Tracing:"), relay.output());
    }

    /** A traceparent naming that span of that trace (its flags: sampled, and the SDK's random-trace-id bit). */
    private static void assertTraceparent(String traceId, String spanId, String traceparent) {
        assertNotNull(traceparent, "no traceparent");
        assertTrue(traceparent.startsWith("00-" + traceId + "-" + spanId + "-"),
                "expected the span " + spanId + " of trace " + traceId + ", got " + traceparent);
    }

    /** The relay's environment; with a service name, OpenTelemetry's, pointed at the receiver. */
    private Map<String, String> relayEnvironment(String service, String endpoint) {
        Map<String, String> env = service == null ? new HashMap<>() : receiver.environment(service);
        env.put("OUTBOX_DB_URL", db.url());
        env.put("OUTBOX_ENDPOINT", endpoint);
        env.put("CAMEL_COMPONENT_KAFKA_BROKERS", SharedKafka.broker().bootstrapServers());
        env.put("OUTBOX_ROUTES_DIR", "target/no-extra-routes");
        env.put("OUTBOX_POLL_DELAY_MS", "200");
        env.put("OUTBOX_REDELIVERY_DELAY_MS", "10");
        return env;
    }

    private static RelayProcess start(Map<String, String> env) {
        RelayProcess relay = RelayProcess.startJar(env, "-Dcamel.management.port=0");
        relay.awaitOutput("(outbox-relay) started", Duration.ofSeconds(120));
        return relay;
    }

    private String insert(String type, String headers) {
        return String.valueOf(db.query(
                "INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, headers) "
                        + "VALUES (?, 'order-1', 'OrderPlaced', '{\"n\": 1}', ?::jsonb) RETURNING id::text AS id",
                type, headers).get(0).get("id"));
    }

    private void awaitPublished(int events) {
        await().atMost(Duration.ofSeconds(60)).until(
                () -> db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'") == events);
    }

    private static List<ReceivedSpan> awaitSpans(String service, int atLeast) {
        return await().atMost(Duration.ofSeconds(30)).until(
                () -> receiver.spans().stream().filter(s -> service.equals(s.service())).toList(),
                spans -> spans.size() >= atLeast);
    }

    private static List<ReceivedSpan> spans(String service, SpanKind kind, String eventId) {
        return receiver.spans().stream().filter(s -> service.equals(s.service()) && s.kind() == kind
                && eventId.equals(s.attributes().get("messaging.message.id"))).toList();
    }

    private static ReceivedSpan only(List<ReceivedSpan> spans, SpanKind kind, String eventId) {
        List<ReceivedSpan> matching = spans.stream().filter(s -> s.kind() == kind
                && eventId.equals(s.attributes().get("messaging.message.id"))).toList();
        assertEquals(1, matching.size(), kind + " spans of " + eventId + ": " + spans);
        return matching.get(0);
    }

    private static String ceId(ConsumerRecord<String, byte[]> record) {
        return SharedKafka.headers(record).get("ce_id");
    }

    private static KafkaProducer<String, byte[]> producer() {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.broker().bootstrapServers());
        return new KafkaProducer<>(properties, new StringSerializer(), new ByteArraySerializer());
    }

    /** The relay process's threads, as jcmd prints them. */
    private static String threadDump(RelayProcess relay) throws IOException, InterruptedException {
        Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(relay.pid()), "Thread.print").redirectErrorStream(true).start();
        String dump = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        jcmd.waitFor(30, TimeUnit.SECONDS);
        return dump;
    }

    private static String suffix() {
        return UUID.randomUUID().toString().substring(0, 8);
    }
}
