package io.outboxrelay.publish;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.outboxrelay.metrics.RelayMetrics;
import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.Expression;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.component.kafka.KafkaConfiguration;
import org.apache.camel.component.kafka.KafkaConstants;
import org.apache.camel.component.kafka.KafkaEndpoint;
import org.apache.camel.support.DefaultExchange;

/**
 * Sends one round (at most one event per key) without waiting, and completes each {@link Delivery} when the broker
 * answered. Events bound for a Kafka endpoint that takes batches are mapped here and sent as one exchange per
 * destination, whose body is the list of per-event exchanges: camel-kafka sends each as its own record with its own
 * headers and key, and reports each record's acknowledgement or error on its exchange. That saves routing every
 * event through Camel. Every other event (another transport, a row that cannot be mapped, a record the broker did
 * not take) goes through the outbox-publish route, whose error handler redelivers, records failed attempts and
 * recognises an outage.
 */
final class RoundSender {

    private final CamelContext context;
    private final ProducerTemplate template;
    private final Endpoint publishRoute;
    private final Expression destination;
    private final OutboxEventMapper mapper;
    private final RelayMetrics metrics;
    private final Map<String, Optional<Endpoint>> batchEndpoints = new ConcurrentHashMap<>();

    RoundSender(CamelContext context, ProducerTemplate template, Endpoint publishRoute, String endpointUri,
            OutboxEventMapper mapper, RelayMetrics metrics) {
        this.context = context;
        this.template = template;
        this.publishRoute = publishRoute;
        // the same dynamic URI the route's toD evaluates: simple language over the event's headers
        this.destination = context.resolveLanguage("simple").createExpression(endpointUri);
        this.mapper = mapper;
        this.metrics = metrics;
    }

    /** Starts every send of the round; {@code sent} runs once per delivery, when it completed. */
    void send(List<Delivery> round, Runnable sent) {
        Map<Endpoint, List<Exchange>> batches = new LinkedHashMap<>();
        Map<Exchange, Delivery> deliveries = new ConcurrentHashMap<>();
        for (Delivery delivery : round) {
            Exchange event = new DefaultExchange(context);
            event.getMessage().setBody(delivery.row());
            Endpoint batchEndpoint;
            try {
                mapper.toMessage(event);
                batchEndpoint = batchEndpoint(destination.evaluate(event, String.class));
            } catch (Exception e) {
                // the route maps it again and records why it cannot be published
                batchEndpoint = null;
            }
            if (batchEndpoint == null) {
                sendThroughRoute(delivery, sent);
            } else {
                batches.computeIfAbsent(batchEndpoint, key -> new ArrayList<>()).add(event);
                deliveries.put(event, delivery);
            }
        }
        batches.forEach((endpoint, events) -> {
            Exchange batch = endpoint.createExchange();
            batch.getMessage().setBody(events);
            template.asyncSend(endpoint, batch).whenComplete((done, error) -> {
                for (Exchange event : events) {
                    settle(event, deliveries.get(event), batch.getException() == null, sent);
                }
            });
        });
    }

    private void settle(Exchange event, Delivery delivery, boolean wholeBatchAcknowledged, Runnable sent) {
        // after a partial failure, only a record with metadata and no error of its own was acknowledged
        boolean acknowledged = wholeBatchAcknowledged || event.getException() == null
                && event.getMessage().getHeader(KafkaConstants.KAFKA_RECORD_META) != null;
        if (acknowledged) {
            event.setProperty(BatchPublisher.PUBLISHED, true);
            metrics.published(event.getProperty(OutboxEventMapper.CREATED_AT, Instant.class));
            delivery.complete(event);
            sent.run();
        } else {
            sendThroughRoute(delivery, sent);
        }
    }

    private void sendThroughRoute(Delivery delivery, Runnable sent) {
        Exchange event = publishRoute.createExchange();
        event.getMessage().setBody(delivery.row());
        template.asyncSend(publishRoute, event).whenComplete((done, error) -> {
            delivery.complete(event);
            sent.run();
        });
    }

    /** The endpoint, when it is a Kafka endpoint set up to send a list as records with their own headers, else null. */
    private Endpoint batchEndpoint(String uri) {
        return batchEndpoints.computeIfAbsent(uri, key -> {
            Endpoint endpoint = context.getEndpoint(key);
            return endpoint instanceof KafkaEndpoint kafka && takesBatches(kafka.getConfiguration())
                    ? Optional.of(endpoint) : Optional.empty();
        }).orElse(null);
    }

    private static boolean takesBatches(KafkaConfiguration kafka) {
        return kafka.isUseIterator() && kafka.isBatchWithIndividualHeaders() && kafka.isRecordMetadata()
                && !kafka.isSynchronous();
    }
}
