package io.outboxrelay.publish;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.outboxrelay.event.EventSchemas;
import io.outboxrelay.event.ExchangeNames;
import io.outboxrelay.event.OutboxEvent;
import io.outboxrelay.support.RelayRoutesTestSupport;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.component.kafka.KafkaConstants;
import org.apache.camel.component.mock.MockEndpoint;
import org.apache.camel.support.DefaultMessage;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.jms.UncategorizedJmsException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The publish routes (routes/claim.camel.yaml's outbox-publish-part and outbox-publish-event, the claim's own routes
 * advised off the database and idle: no partition is owned) with their failure handling (routes/failure.camel.yaml),
 * as routes:
 * an event sent alone (direct:outbox-publish-event, body its id) and a part (direct:outbox-publish-part, body the
 * events' messages), each with the claim's batch in its exchange property, to a mock broker that fails on demand.
 */
// a route that redelivers forever would otherwise hang the unit layer
@Timeout(20)
class PublishRoutesTest extends RelayRoutesTestSupport {

    private final OutboxEvent a1 = event("a1", "A");
    private final OutboxEvent a2 = event("a2", "A");
    private final OutboxEvent b1 = event("b1", "B");
    private final OutboxEvent.Batch batch = batch(a1, a2, b1);

    @Override
    protected List<String> routeFiles() {
        return CLAIM_PATH_ROUTES;
    }

    @Override
    protected void advise() throws Exception {
        adviseClaimRoutes();
    }

    /** order/Checked has a schema; the other tests' events (OrderPlaced) have none. */
    @Override
    protected EventSchemas eventSchemas() {
        try {
            Path dir = Files.createTempDirectory("publish-routes-schemas");
            Files.createDirectories(dir.resolve("order"));
            Files.writeString(dir.resolve("order/Checked.schema.json"),
                    "{\"type\": \"object\", \"required\": [\"amount\"]}");
            return EventSchemas.load(dir.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void anAcknowledgedEventReachesTheBrokerAsACloudEventAndCountsAsPublished() throws Exception {
        OutboxEvent traced = new OutboxEvent("c1", 7, 2, "customer", "C-9", "CustomerRegistered", "{\"name\":\"Zoë\"}",
                "{\"traceparent\":\"00-4bf92f-01\"}", Instant.parse("2024-03-04T05:06:07Z"), 0);
        OutboxEvent.Batch customers = batch(traced);
        MockEndpoint broker = getMockEndpoint("mock:outbox.event.customer");
        broker.expectedMessageCount(1);
        broker.expectedHeaderReceived("ce_id", "c1");
        broker.expectedHeaderReceived("ce_type", "CustomerRegistered");
        broker.expectedHeaderReceived("ce_source", context.resolvePropertyPlaceholders("{{outbox.source}}"));
        broker.expectedHeaderReceived("ce_specversion", "1.0");
        broker.expectedHeaderReceived("ce_time", "2024-03-04T05:06:07Z");
        broker.expectedHeaderReceived("content-type", "application/json");
        broker.expectedHeaderReceived("traceparent", "00-4bf92f-01");
        broker.expectedHeaderReceived(KafkaConstants.KEY, "C-9");

        Exchange sent = publishEvent("c1", customers);

        broker.assertIsSatisfied();
        assertArrayEquals("{\"name\":\"Zoë\"}".getBytes(StandardCharsets.UTF_8),
                broker.getReceivedExchanges().get(0).getMessage().getBody(byte[].class));
        assertNull(sent.getException());
        assertTrue(customers.isPublished("c1"));
        getMockEndpoint(ORDERS).expectedMessageCount(0);
        getMockEndpoint(RECORD_FAILURE).expectedMessageCount(0);
        MockEndpoint.assertIsSatisfied(context);
    }

    @Test
    void anEventSentAloneIsRedeliveredThenRecordedAsAFailedAttempt() throws Exception {
        int redeliveries = Integer.parseInt(
                context.resolvePropertyPlaceholders("{{outbox.redelivery.maximum-redeliveries}}"));
        MockEndpoint broker = failing(ORDERS, new IllegalStateException("partition leader rejected it"));
        broker.expectedMessageCount(1 + redeliveries);
        MockEndpoint recorded = getMockEndpoint(RECORD_FAILURE);
        recorded.expectedMessageCount(1);
        recorded.expectedHeaderReceived(ExchangeNames.ERROR,
                "java.lang.IllegalStateException: partition leader rejected it");
        recorded.expectedHeaderReceived(ExchangeNames.UNPUBLISHABLE, false);
        recorded.expectedPropertyReceived(ExchangeNames.EVENT_ID, "a1");

        Exchange sent = publishEvent("a1", batch);

        MockEndpoint.assertIsSatisfied(broker, recorded);
        assertNull(sent.getException(), "handled: the claim goes on with the other keys");
        assertEquals(redeliveries,
                broker.getReceivedExchanges().get(redeliveries).getMessage().getHeader(Exchange.REDELIVERY_COUNTER));
        assertFalse(batch.isPublished("a1"));
        assertFalse(batch.maySend("a2"), "the failed event's key waits");
        assertTrue(batch.maySend("b1"), "other keys carry on");
        assertEquals(1.0, count("outbox.publish.failures"));
        assertEquals(0, probes.get(), "not a transport error: the broker is not even asked");
    }

    @Test
    void anUnpublishableRowIsRecordedAtOnceWithoutBeingSentOrRedelivered() throws Exception {
        OutboxEvent broken = new OutboxEvent("x1", 1, 0, "order", "X", "OrderPlaced", "{}", "[\"not\",\"an object\"]",
                Instant.EPOCH, 0);
        OutboxEvent.Batch withBroken = batch(broken, event("x2", "X"));
        MockEndpoint recorded = getMockEndpoint(RECORD_FAILURE);
        recorded.expectedMessageCount(1);
        recorded.expectedHeaderReceived(ExchangeNames.UNPUBLISHABLE, true);
        recorded.expectedPropertyReceived(ExchangeNames.EVENT_ID, "x1");
        getMockEndpoint(ORDERS).expectedMessageCount(0);

        Exchange sent = publishEvent("x1", withBroken);

        MockEndpoint.assertIsSatisfied(context);
        assertNull(sent.getException());
        assertEquals(1, mapped.get(), "mapped once: no redelivery can make it a message");
        String error = recorded.getReceivedExchanges().get(0).getMessage().getHeader(ExchangeNames.ERROR, String.class);
        assertTrue(error.startsWith(UnpublishableEventException.class.getName() + ": event x1: headers must be"),
                error);
        assertFalse(withBroken.maySend("x2"));
    }

    @Test
    void anEventItsSchemaRejectsIsRecordedAtOnceAsUnpublishableWithoutBeingSentOrRedelivered() throws Exception {
        OutboxEvent invalid = new OutboxEvent("s1", 1, 0, "order", "S", "Checked", "{\"total\": 1}", null,
                Instant.EPOCH, 0);
        OutboxEvent.Batch withInvalid = batch(invalid, event("s2", "S"));
        MockEndpoint recorded = getMockEndpoint(RECORD_FAILURE);
        recorded.expectedMessageCount(1);
        recorded.expectedHeaderReceived(ExchangeNames.UNPUBLISHABLE, true);
        recorded.expectedPropertyReceived(ExchangeNames.EVENT_ID, "s1");
        getMockEndpoint(ORDERS).expectedMessageCount(0);

        Exchange sent = publishEvent("s1", withInvalid);

        MockEndpoint.assertIsSatisfied(context);
        assertNull(sent.getException());
        assertEquals(1, mapped.get(), "mapped once: no redelivery can make it valid");
        String error = recorded.getReceivedExchanges().get(0).getMessage()
                .getHeader(ExchangeNames.ERROR, String.class);
        assertTrue(error.startsWith(
                SchemaViolationException.class.getName() + ": event s1: payload rejected by schema "), error);
        assertTrue(error.endsWith("order/Checked.schema.json: (root): required property 'amount' not found"), error);
        assertFalse(withInvalid.maySend("s2"), "its key's later events wait");
    }

    @Test
    void aRecordTooLargeForItsTopicIsRecordedAtOnceWithoutRedelivery() throws Exception {
        MockEndpoint broker = failing(ORDERS, new RecordTooLargeException("The message is 2000000 bytes"));
        broker.expectedMessageCount(1);
        MockEndpoint recorded = getMockEndpoint(RECORD_FAILURE);
        recorded.expectedMessageCount(1);
        recorded.expectedHeaderReceived(ExchangeNames.ERROR, RecordTooLargeException.class.getName()
                + ": The message is 2000000 bytes");
        recorded.expectedHeaderReceived(ExchangeNames.UNPUBLISHABLE, false);

        publishEvent("a1", batch);

        MockEndpoint.assertIsSatisfied(broker, recorded);
        assertFalse(batch.maySend("a2"));
    }

    static Stream<Arguments> transportErrors() {
        return Stream.of(Arguments.of(new TimeoutException("Expiring 1 record(s)")),
                Arguments.of(new ConnectException("Connection refused")),
                Arguments.of(new UncategorizedJmsException("AMQ219010: Connection is destroyed")));
    }

    @ParameterizedTest
    @MethodSource("transportErrors")
    void aTransportErrorWhileTheBrokerIsUnreachableIsAnOutageNotAFailedAttempt(Exception error) throws Exception {
        brokerProblem = "broker unreachable";
        MockEndpoint broker = failing(ORDERS, error);
        // the first failure has the broker probed; its redelivery finds the outage before the attempt counts
        broker.expectedMessageCount(2);
        getMockEndpoint(RECORD_FAILURE).expectedMessageCount(0);

        Exchange sent = publishEvent("a1", batch);

        MockEndpoint.assertIsSatisfied(context);
        assertNull(sent.getException());
        assertTrue(brokerOutage.isDown(), "claims pause");
        assertFalse(batch.maySend("b1"), "nothing more of the batch is sent");
        assertFalse(batch.isPublished("a1"));
        assertEquals(0.0, count("outbox.publish.failures"), "no attempt counted");
    }

    @ParameterizedTest
    @MethodSource("transportErrors")
    void aTransportErrorWhileTheBrokerAnswersIsAnOrdinaryFailedAttempt(Exception error) throws Exception {
        int redeliveries = Integer.parseInt(
                context.resolvePropertyPlaceholders("{{outbox.redelivery.maximum-redeliveries}}"));
        MockEndpoint broker = failing(ORDERS, error);
        broker.expectedMessageCount(1 + redeliveries);
        MockEndpoint recorded = getMockEndpoint(RECORD_FAILURE);
        recorded.expectedMessageCount(1);
        recorded.expectedHeaderReceived(ExchangeNames.ERROR, error.getClass().getName() + ": " + error.getMessage());

        publishEvent("a1", batch);

        MockEndpoint.assertIsSatisfied(broker, recorded);
        assertEquals(1, probes.get(), "the broker was asked once: its answer holds for the redeliveries");
        assertFalse(brokerOutage.isDown());
        assertFalse(batch.maySend("a2"));
        assertTrue(batch.maySend("b1"));
        assertEquals(1.0, count("outbox.publish.failures"));
    }

    @Test
    void aPartIsSentAsOneExchangeOfItsEventsMessages() throws Exception {
        MockEndpoint broker = getMockEndpoint(ORDERS);
        broker.expectedMessageCount(1);

        Exchange sent = publishPart(batch, a1, b1);

        broker.assertIsSatisfied();
        assertNull(sent.getException());
        List<?> records = broker.getReceivedExchanges().get(0).getMessage().getBody(List.class);
        assertEquals(List.of("a1", "b1"), records.stream().map(m -> ((Message) m).getHeader("ce_id")).toList());
    }

    @Test
    void aPartThatFailsIsHandledWithoutRecordingAnything() throws Exception {
        MockEndpoint broker = failing(ORDERS, new IllegalStateException("NOT_LEADER_OR_FOLLOWER"));
        broker.expectedMessageCount(1);
        getMockEndpoint(RECORD_FAILURE).expectedMessageCount(0);

        Exchange sent = publishPart(batch, a1, b1);

        MockEndpoint.assertIsSatisfied(context);
        assertNull(sent.getException(), "its events are sent one by one next");
        assertTrue(batch.maySend("a1") && batch.maySend("b1"), "no key held back, no outage");
        assertEquals(0, batch.publishedIds().length);
        assertEquals(0.0, count("outbox.publish.failures"));
    }

    @Test
    void aPartThatFailsWhileTheBrokerIsUnreachableStopsTheBatch() throws Exception {
        brokerProblem = "Kafka unreachable";
        failing(ORDERS, new TimeoutException("Topic not present in metadata after 10000 ms"));
        getMockEndpoint(RECORD_FAILURE).expectedMessageCount(0);

        Exchange sent = publishPart(batch, a1, b1);

        MockEndpoint.assertIsSatisfied(context);
        assertNull(sent.getException());
        assertTrue(brokerOutage.isDown());
        assertFalse(batch.maySend("a1"), "not sent one by one either");
    }

    @Test
    void aPartThatFailsWithATransportErrorWhileTheBrokerAnswersIsAnOrdinaryPartFailure() throws Exception {
        failing(ORDERS, new TimeoutException("Expiring 2 record(s)"));

        Exchange sent = publishPart(batch, a1, b1);

        assertNull(sent.getException());
        assertEquals(1, probes.get());
        assertFalse(brokerOutage.isDown());
        assertTrue(batch.maySend("a1"), "its events go one by one next");
    }

    // --- helpers

    /** What the claim route does for an event sent alone: the body is its id, the batch rides along. */
    private Exchange publishEvent(String id, OutboxEvent.Batch batch) {
        return template.send("direct:outbox-publish-event", exchange -> {
            exchange.getMessage().setBody(id);
            exchange.setProperty(ExchangeNames.BATCH, batch);
        });
    }

    /** What the claim route's split sends for a part (as BatchParts plans it): the events' messages in one body. */
    private Exchange publishPart(OutboxEvent.Batch batch, OutboxEvent... events) {
        CloudEventsMapper mapper = context.getRegistry().lookupByNameAndType("cloudEventsMapper",
                CloudEventsMapper.class);
        List<Message> messages = new ArrayList<>();
        for (OutboxEvent event : events) {
            Message message = new DefaultMessage(context);
            mapper.write(event, message);
            messages.add(message);
        }
        return template.send("direct:outbox-publish-part", exchange -> {
            // the part's endpoint, as publish.BatchParts names it: here every event's, the orders' mock
            exchange.getMessage().setHeader(ExchangeNames.PART_ENDPOINT, ORDERS);
            exchange.getMessage().setBody(messages);
            exchange.setProperty(ExchangeNames.BATCH, batch);
        });
    }

    /** The broker endpoint, failing every send with the error. */
    private MockEndpoint failing(String uri, Exception error) {
        MockEndpoint broker = getMockEndpoint(uri);
        broker.whenAnyExchangeReceived(exchange -> {
            throw error;
        });
        return broker;
    }
}
