package io.outboxrelay.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.outboxrelay.event.ExchangeNames;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.support.SynchronizationAdapter;

/**
 * The inbox template's steps that trace: a CONSUMER span per message received ({@code process <destination>}), child
 * of the span the message's {@code traceparent} names (the relay's send), from the inbox's first step until the
 * message's exchange is over (its transaction committed or rolled back); ERROR when it failed; a duplicate the inbox
 * dropped is marked. The message's {@code traceparent} is then the consumer span's, so what the handler sends on, or
 * traces from the headers, continues it. Tracing off: the steps do nothing. Java because Camel's OpenTelemetry
 * support would open its own span for the consumer, child of its route, not the one the contract names.
 */
public final class InboxSpans {

    static final AttributeKey<Boolean> DUPLICATE = AttributeKey.booleanKey("outbox.inbox.duplicate");
    static final AttributeKey<String> CONSUMER = AttributeKey.stringKey("outbox.inbox.consumer");

    private volatile Tracing tracing;

    /** For a Kamelet's bean: the context's tracing is looked up (or made) at the first message. */
    public InboxSpans() {
    }

    public InboxSpans(Tracing tracing) {
        this.tracing = tracing;
    }

    /** The inbox's first step: the message's span starts, and ends with its exchange. */
    public void start(Exchange exchange) {
        Tracing on = tracing(exchange.getContext());
        if (!on.isOn()) {
            return;
        }
        Message message = exchange.getMessage();
        Context parent = on.propagator().extract(Context.root(), message, MessageHeaders.CARRIER);
        MessagingEndpoint source = MessagingEndpoint.of(exchange.getFromEndpoint());
        Span span = on.tracer().spanBuilder("process " + source.destination())
                .setSpanKind(SpanKind.CONSUMER)
                .setParent(parent)
                .setAttribute(SendSpans.SYSTEM, source.system())
                .setAttribute(SendSpans.DESTINATION, source.destination())
                .setAttribute(SendSpans.OPERATION, "process")
                .setAttribute(CONSUMER, exchange.getProperty(ExchangeNames.INBOX_CONSUMER, String.class))
                .setAttribute(DUPLICATE, false)
                .startSpan();
        String id = message.getHeader("ce_id", String.class);
        if (id != null) {
            span.setAttribute(SendSpans.MESSAGE_ID, id);
        }
        on.propagator().inject(parent.with(span), message, MessageHeaders.CARRIER);
        exchange.setProperty(ExchangeNames.INBOX_SPAN, span);
        exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
            @Override
            public void onFailure(Exchange failed) {
                Exception exception = failed.getException();
                span.setStatus(StatusCode.ERROR, exception == null ? "failed" : String.valueOf(exception.getMessage()));
                if (exception != null) {
                    span.recordException(exception);
                }
                span.end();
            }

            @Override
            public void onComplete(Exchange completed) {
                span.end();
            }
        });
    }

    /** The duplicate branch's step: the message was applied before, and dropped. */
    public void duplicate(Exchange exchange) {
        if (exchange.getProperty(ExchangeNames.INBOX_SPAN) instanceof Span span) {
            span.setAttribute(DUPLICATE, true);
        }
    }

    private Tracing tracing(CamelContext context) {
        Tracing known = tracing;
        if (known == null) {
            known = Tracing.of(context);
            tracing = known;
        }
        return known;
    }
}
