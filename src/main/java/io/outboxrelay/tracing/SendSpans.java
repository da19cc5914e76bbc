package io.outboxrelay.tracing;

import java.util.ArrayList;
import java.util.List;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.outboxrelay.event.ExchangeNames;
import io.outboxrelay.event.OutboxEvent;
import io.outboxrelay.publish.BatchParts;
import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.component.kafka.KafkaConstants;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.spi.CamelEvent.ExchangeSendingEvent;
import org.apache.camel.spi.CamelEvent.ExchangeSentEvent;
import org.apache.camel.support.EventNotifierSupport;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * A PRODUCER span per publish attempt of an event: started when Camel sends the event's exchange to the broker's
 * endpoint, ended when the send is over (acknowledged, or failed: status ERROR with the exception), child of the
 * writer's span named by the row's {@code traceparent} header (a new trace without one), and written into the
 * message's {@code traceparent}/{@code tracestate} before it leaves. Each redelivery is a send, so an attempt of its
 * own. Java because Camel's OpenTelemetry support (camel-opentelemetry2) traces exchanges, as children of the route's
 * span: a part sends many events in one exchange, and each event's span must continue its own writer's trace.
 * Registered only when tracing is on: off, Camel sends no event here.
 */
public final class SendSpans extends EventNotifierSupport {

    static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    static final AttributeKey<String> OPERATION = AttributeKey.stringKey("messaging.operation.type");
    static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
    static final AttributeKey<String> PARTITION = AttributeKey.stringKey("messaging.destination.partition.id");
    static final AttributeKey<Long> OFFSET = AttributeKey.longKey("messaging.kafka.offset");
    /** From the row's created_at (the writer's transaction) to the claim that read it. */
    static final AttributeKey<Long> WAIT = AttributeKey.longKey("outbox.event.wait_ms");
    /** The attempts recorded on the row before this claim, when there were some. */
    static final AttributeKey<Long> ATTEMPTS = AttributeKey.longKey("outbox.event.attempts");


    private final Tracing tracing;
    private final String scheme;

    /** @param scheme the scheme of outbox.endpoint: only sends to it are publish attempts */
    public SendSpans(Tracing tracing, String scheme) {
        this.tracing = tracing;
        this.scheme = scheme + ":";
        setIgnoreCamelContextEvents(true);
        setIgnoreCamelContextInitEvents(true);
        setIgnoreRouteEvents(true);
        setIgnoreServiceEvents(true);
        setIgnoreStepEvents(true);
        setIgnoreExchangeCreatedEvent(true);
        setIgnoreExchangeCompletedEvent(true);
        setIgnoreExchangeFailedEvents(true);
        setIgnoreExchangeRedeliveryEvents(true);
        setIgnoreExchangeAsyncProcessingStartedEvents(true);
    }

    @Override
    public boolean isEnabled(CamelEvent event) {
        return event instanceof ExchangeSendingEvent || event instanceof ExchangeSentEvent;
    }

    @Override
    public void notify(CamelEvent event) {
        if (event instanceof ExchangeSendingEvent sending) {
            start(sending.getExchange(), sending.getEndpoint());
        } else if (event instanceof ExchangeSentEvent sent) {
            end(sent.getExchange());
        }
    }

    private record Send(Span span, Message message, boolean kafka) {
    }

    private void start(Exchange exchange, Endpoint endpoint) {
        OutboxEvent.Batch batch = exchange.getProperty(ExchangeNames.BATCH, OutboxEvent.Batch.class);
        if (batch == null || !endpoint.getEndpointUri().startsWith(scheme)) {
            return;
        }
        MessagingEndpoint destination = MessagingEndpoint.of(endpoint);
        Message message = exchange.getMessage();
        if (message.getBody() instanceof List<?> part) {
            List<Send> sends = new ArrayList<>(part.size());
            for (Object record : part) {
                Message event = (Message) record;
                // a part's events name their own topics (publish.PartEndpoints: one endpoint for several topics)
                MessagingEndpoint topic = destination.withDestination(
                        event.getHeader(KafkaConstants.OVERRIDE_TOPIC, String.class));
                sends.add(start(event, extract(event), topic, batch));
            }
            exchange.setProperty(ExchangeNames.SEND_SPANS, sends);
        } else {
            Context parent = exchange.getProperty(ExchangeNames.TRACE_PARENT, Context.class);
            if (parent == null) {
                parent = extract(message);
                exchange.setProperty(ExchangeNames.TRACE_PARENT, parent);
            }
            exchange.setProperty(ExchangeNames.SEND_SPANS, List.of(start(message, parent, destination, batch)));
        }
    }

    private Context extract(Message message) {
        return tracing.propagator().extract(Context.root(), message, MessageHeaders.CARRIER);
    }

    private Send start(Message message, Context parent, MessagingEndpoint destination, OutboxEvent.Batch batch) {
        OutboxEvent event = batch.event(message.getHeader("ce_id", String.class));
        Span span = tracing.tracer().spanBuilder("send " + destination.destination())
                .setSpanKind(SpanKind.PRODUCER)
                .setParent(parent)
                .setAttribute(SYSTEM, destination.system())
                .setAttribute(DESTINATION, destination.destination())
                .setAttribute(MESSAGE_ID, event.id())
                .setAttribute(WAIT, Math.max(0, batch.claimedAt().toEpochMilli() - event.createdAt().toEpochMilli()))
                .startSpan();
        if (event.attempts() > 0) {
            span.setAttribute(ATTEMPTS, (long) event.attempts());
        }
        boolean kafka = "kafka".equals(destination.system());
        tracing.propagator().inject(parent.with(span), message, MessageHeaders.CARRIER);
        return new Send(span, message, kafka);
    }

    /** A span per event: the common partition numbers' strings are made once. */
    private static final String[] PARTITION_IDS = java.util.stream.IntStream.range(0, 256).mapToObj(Integer::toString)
            .toArray(String[]::new);

    private static String partitionId(int partition) {
        return partition >= 0 && partition < PARTITION_IDS.length ? PARTITION_IDS[partition]
                : Integer.toString(partition);
    }

    private void end(Exchange exchange) {
        @SuppressWarnings("unchecked")
        List<Send> sends = exchange.removeProperty(ExchangeNames.SEND_SPANS) instanceof List<?> list
                ? (List<Send>) list : null;
        if (sends == null) {
            return;
        }
        Exception failure = exchange.getException();
        for (Send send : sends) {
            Span span = send.span();
            RecordMetadata appended = send.kafka() ? BatchParts.appended(send.message()) : null;
            if (appended != null) {
                span.setAttribute(PARTITION, partitionId(appended.partition()));
                span.setAttribute(OFFSET, appended.offset());
            } else if (failure != null) {
                span.setStatus(StatusCode.ERROR, String.valueOf(failure.getMessage()));
                span.recordException(failure);
            } else if (send.kafka()) {
                span.setStatus(StatusCode.ERROR, "not acknowledged by the broker");
            }
            span.end();
        }
    }
}
