package io.outboxrelay.camelk;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import io.outboxrelay.settings.Database;
import io.outboxrelay.support.OtlpReceiver;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.TestDatabase;
import org.apache.camel.CamelExecutionException;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.main.Main;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The postgresql-inbox-action Kamelet run through the kamelet: component as a Pipe's step runs it, against the real
 * PostgreSQL or MariaDB (the data source's database: its inbox table and statement), with the Integration's data
 * source and a handler route of its own: a duplicate is dropped before the Pipe's next step, a failing handler rolls
 * its write and the inbox row back and fails the exchange (the source redelivers), a message without ce_id is not
 * applied.
 */
@Tag("services")
class InboxKameletRuntimeTest {

    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void theKameletAppliesEachMessageOnceInTheHandlersTransaction(Database database) {
        try (TestDatabase db = TestDatabase.create(database)) {
            // on PostgreSQL in a schema of its own; a MariaDB schema is a database, the test's
            String inbox = database == Database.MARIADB ? "inbox" : "app.inbox";
            if (database == Database.POSTGRESQL) {
                db.update("CREATE SCHEMA app");
            }
            db.update("CREATE TABLE applied (order_id varchar(255) NOT NULL)");
            Main main = pipe(db);
            main.configure().addRoutesBuilder(new RouteBuilder() {
                @Override
                public void configure() {
                    // the Pipe: source -> the inbox action -> the sink
                    from("direct:source").routeId("pipe")
                            .to("kamelet:postgresql-inbox-action?consumer=orders&handler=direct:apply-order"
                                    + "&dataSource=ordersDb&table=" + inbox)
                            .to("mock:sink");
                    from("direct:apply-order").routeId("apply-order")
                            .to("sql:INSERT INTO applied (order_id) VALUES (:#${header.ce_subject})"
                                    + "?dataSource=#ordersDb")
                            .filter(header("fail").isEqualTo("yes"))
                                .throwException(new IllegalStateException("handler failed on purpose"));
                }
            });
            Map<String, String> settings = new HashMap<>();
            settings.put("camel.management.enabled", "false");
            try (RelayInstance pipe = RelayInstance.start(main, settings)) {
                ProducerTemplate source = pipe.context().createProducerTemplate();
                String ceId = UUID.randomUUID().toString();
                Map<String, Object> headers = Map.of("ce_id", ceId, "ce_subject", "order-1", "ce_type", "OrderPlaced");
                source.sendBodyAndHeaders("direct:source", "{}", headers);
                source.sendBodyAndHeaders("direct:source", "{}", headers);
                assertEquals(1, db.count("SELECT count(*) FROM applied WHERE order_id = 'order-1'"),
                        "the copy is dropped");
                assertEquals(1, db.count("SELECT count(*) FROM " + inbox + " WHERE consumer = 'orders' "
                        + "AND message_id = ? AND type = 'OrderPlaced'", ceId));

                String failing = UUID.randomUUID().toString();
                assertThrows(CamelExecutionException.class, () -> source.sendBodyAndHeaders("direct:source", "{}",
                        Map.of("ce_id", failing, "ce_subject", "order-2", "fail", "yes")));
                assertEquals(0, db.count("SELECT count(*) FROM applied WHERE order_id = 'order-2'"), "rolled back");
                assertEquals(0, db.count("SELECT count(*) FROM " + inbox + " WHERE message_id = ?", failing),
                        "with its inbox row");
                source.sendBodyAndHeaders("direct:source", "{}", Map.of("ce_id", failing, "ce_subject", "order-2"));
                assertEquals(1, db.count("SELECT count(*) FROM applied WHERE order_id = 'order-2'"),
                        "applied when redelivered");

                source.sendBodyAndHeaders("direct:source", "{}", Map.of("ce_subject", "order-3"));
                assertEquals(0, db.count("SELECT count(*) FROM applied WHERE order_id = 'order-3'"),
                        "no ce_id: not applied");
            }
        }
    }

    @Test
    void withOpenTelemetryConfiguredTheKameletMakesAConsumerSpanPerMessageInItsTrace() {
        try (TestDatabase db = TestDatabase.create(); OtlpReceiver receiver = OtlpReceiver.start()) {
            Main main = pipe(db);
            main.configure().addRoutesBuilder(new RouteBuilder() {
                @Override
                public void configure() {
                    from("direct:traced-source").routeId("traced-pipe")
                            .to("kamelet:postgresql-inbox-action?consumer=orders&handler=direct:noop"
                                    + "&dataSource=ordersDb&table=inbox");
                    from("direct:noop").routeId("noop").log("applied ${header.ce_id}")
                            .filter(header("fail").isEqualTo("yes"))
                                .throwException(new IllegalStateException("handler failed on purpose"));
                }
            });
            // OpenTelemetry's configuration as system properties: this JVM's environment cannot be set from here
            Map<String, String> otel = new HashMap<>();
            receiver.environment("inbox-kamelet").forEach((name, value) ->
                    otel.put(name.toLowerCase(java.util.Locale.ROOT).replace('_', '.'), value));
            otel.forEach(System::setProperty);
            String writerTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
            String sendSpan = "00f067aa0ba902b7";
            String ceId = UUID.randomUUID().toString();
            Map<String, Object> headers = Map.of("ce_id", ceId, "ce_subject", "order-1",
                    "traceparent", "00-" + writerTrace + "-" + sendSpan + "-01");
            try (RelayInstance pipe = RelayInstance.start(main, Map.of("camel.management.enabled", "false"))) {
                ProducerTemplate source = pipe.context().createProducerTemplate();
                source.sendBodyAndHeaders("direct:traced-source", "{}", headers);
                source.sendBodyAndHeaders("direct:traced-source", "{}", headers);
                Map<String, Object> failing = new HashMap<>(headers);
                failing.put("ce_id", UUID.randomUUID().toString());
                failing.put("fail", "yes");
                assertThrows(CamelExecutionException.class,
                        () -> source.sendBodyAndHeaders("direct:traced-source", "{}", failing));
            } finally {
                otel.keySet().forEach(System::clearProperty);
            }
            List<OtlpReceiver.ReceivedSpan> spans = await().atMost(Duration.ofSeconds(30)).until(receiver::spans,
                    received -> received.size() == 3);
            for (OtlpReceiver.ReceivedSpan span : spans) {
                assertEquals(Span.SpanKind.SPAN_KIND_CONSUMER, span.kind());
                assertEquals(writerTrace, span.traceId());
                assertEquals(sendSpan, span.parentSpanId());
                assertEquals("orders", span.attributes().get("outbox.inbox.consumer"));
            }
            List<OtlpReceiver.ReceivedSpan> applied = spans.stream()
                    .filter(s -> ceId.equals(s.attributes().get("messaging.message.id"))).toList();
            assertEquals(List.of(false, true), applied.stream().map(s -> s.attributes().get("outbox.inbox.duplicate"))
                    .toList(), "the second is the dropped duplicate");
            applied.forEach(s -> assertEquals(Status.StatusCode.STATUS_CODE_UNSET, s.status()));
            OtlpReceiver.ReceivedSpan failed = spans.stream()
                    .filter(s -> !ceId.equals(s.attributes().get("messaging.message.id"))).findFirst().orElseThrow();
            assertEquals(Status.StatusCode.STATUS_CODE_ERROR, failed.status(), "the handler failed");
            assertTrue(failed.eventNames().contains("exception"));
        }
    }

    /**
     * A Camel Main as a Pipe runs the Kamelet: only what a Pipe gives it (not the relay's application.properties),
     * the Kamelets of deploy/camel-k, and the Integration's data source (ordersDb) on the test's database.
     */
    private static Main pipe(TestDatabase db) {
        Main main = new Main();
        main.setDefaultPropertyPlaceholderLocation("false");
        main.addInitialProperty("camel.component.kamelet.location", "file:deploy/camel-k/kamelets");
        main.bind("ordersDb", db.dataSource());
        return main;
    }
}
