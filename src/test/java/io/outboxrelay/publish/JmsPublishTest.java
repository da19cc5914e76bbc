package io.outboxrelay.publish;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.outboxrelay.support.EmbeddedArtemis;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.TestDatabase;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transport swap: only outbox.endpoint and outbox.jms.broker-url change, and a real Artemis broker gets the
 * events.
 */
@Tag("services")
class JmsPublishTest {

    private static final int EVENTS = 100;
    private static TestDatabase db;
    private static EmbeddedArtemis artemis;
    private static RelayInstance relay;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        artemis = EmbeddedArtemis.start();
        Map<String, String> settings = RelayInstance.settings(db, "jms:queue:orders", "127.0.0.1:1");
        settings.put("outbox.jms.broker-url", artemis.url());
        relay = RelayInstance.start(settings);
    }

    @AfterAll
    static void stop() throws Exception {
        relay.close();
        artemis.close();
        db.close();
    }

    @Test
    void publishesEveryRowAsAJmsMessageWithCloudEventsProperties() throws Exception {
        for (int i = 0; i < EVENTS; i++) {
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, headers) "
                    + "VALUES (?, ?, ?, ?::jsonb, ?::jsonb)", "order", "order-" + (i % 10), "OrderCreated",
                    "{\"n\": " + i + "}", "{\"tenant\": \"acme\"}");
        }
        await().atMost(Duration.ofSeconds(60)).until(
                () -> db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'") == EVENTS);

        Map<String, Map<String, Object>> rows = db.query(
                "SELECT id::text AS id, aggregate_id, event_type, payload::text AS payload FROM outbox").stream()
                .collect(Collectors.toMap(r -> (String) r.get("id"), Function.identity()));
        Map<String, Message> received = new HashMap<>();
        try (Connection connection = new ActiveMQConnectionFactory(artemis.url()).createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue("orders"));
            Message message;
            while ((message = consumer.receive(2000)) != null) {
                assertNull(received.put(message.getStringProperty("ce_id"), message), "duplicate message");
            }
        }
        assertEquals(EVENTS, received.size());
        for (Message message : received.values()) {
            Map<String, Object> row = rows.get(message.getStringProperty("ce_id"));
            assertNotNull(row);
            BytesMessage bytes = (BytesMessage) message;
            byte[] body = new byte[(int) bytes.getBodyLength()];
            bytes.readBytes(body);
            assertEquals(row.get("payload"), new String(body, StandardCharsets.UTF_8));
            assertEquals(row.get("event_type"), message.getStringProperty("ce_type"));
            assertEquals("/outbox", message.getStringProperty("ce_source"));
            assertEquals(row.get("aggregate_id"), message.getStringProperty("ce_subject"));
            assertEquals("1.0", message.getStringProperty("ce_specversion"));
            assertEquals("order", message.getStringProperty("ce_aggregatetype"));
            assertNotNull(message.getStringProperty("ce_time"));
            // Camel's default JMS key format encodes '-' in property names
            assertEquals("application/json", message.getStringProperty("content_HYPHEN_type"));
            assertEquals("acme", message.getStringProperty("tenant"));
            assertFalse(message.propertyExists("kafka_DOT_KEY"), "no Kafka key on a JMS message");
        }

        // readiness includes the JMS broker when JMS is the transport
        HttpResponse<String> ready = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + relay.managementPort() + "/observe/health/ready")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, ready.statusCode(), ready.body());
        assertTrue(ready.body().contains("\"broker\""), ready.body());
    }
}
