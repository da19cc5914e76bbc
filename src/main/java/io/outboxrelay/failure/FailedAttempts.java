package io.outboxrelay.failure;

import io.outboxrelay.event.OutboxEvent;
import io.outboxrelay.event.ExchangeNames;
import io.outboxrelay.metrics.RelayMetrics;
import io.outboxrelay.publish.UnpublishableEventException;
import org.apache.camel.Body;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.NestedExceptionUtils;

/**
 * The steps of the record-failure route around its SQL (sql/record-failure.sql): what the failure says (the text kept
 * in last_error, and whether the row can never be published), then what it changed (the rest of the event's key in
 * this batch waits; metrics; one WARN line per failed attempt).
 */
public class FailedAttempts {

    private static final Logger LOG = LoggerFactory.getLogger(FailedAttempts.class);
    /** last_error is for people reading the table: long stack-like messages are cut. */
    private static final int MAX_LENGTH = 2000;

    private final RelayMetrics metrics;

    public FailedAttempts(RelayMetrics metrics) {
        this.metrics = metrics;
    }

    /** The headers the SQL reads: the failure's description, and whether the event can ever be sent. */
    public void describe(Exchange exchange) {
        Throwable cause = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        exchange.getMessage().setHeader(ExchangeNames.ERROR, describe(cause));
        exchange.getMessage().setHeader(ExchangeNames.UNPUBLISHABLE, cause instanceof UnpublishableEventException);
    }

    /**
     * @param status the row's status afterwards (PENDING or FAILED), or null when the failure was not written: the
     *               row is no longer PENDING, or no longer this instance's to write (its partition moved)
     */
    public void reportRecorded(@Body String status, @ExchangeProperty(ExchangeNames.BATCH) OutboxEvent.Batch batch,
            @ExchangeProperty(ExchangeNames.EVENT_ID) String id, Exchange exchange) {
        batch.holdBackKeyOf(id);
        if (status == null) {
            LOG.debug("event {} failed ({}), not recorded: no longer PENDING or no longer this instance's", id,
                    exchange.getMessage().getHeader(ExchangeNames.ERROR));
            return;
        }
        metrics.publishFailed(status);
        LOG.warn("event {} failed, now {}: {}", id, status, exchange.getMessage().getHeader(ExchangeNames.ERROR));
    }

    /**
     * A send that failed while the relay stops is not the event's failure: a producer made for the claim's first
     * send to a destination after the stop began is never started (Camel starts no new service while its context
     * stops), and a broker connection may be closing. Nothing is written: the event stays PENDING as it was, and the
     * rest of the batch is not sent either (released untouched, for the next owner of its partition).
     */
    public void leaveForTheNextClaim(@ExchangeProperty(ExchangeNames.BATCH) OutboxEvent.Batch batch,
            @ExchangeProperty(ExchangeNames.EVENT_ID) String id, Exchange exchange) {
        batch.holdBackKeyOf(id);
        batch.stopSending();
        LOG.info("event {} not sent: the relay is stopping ({}); it and the rest of its claim stay PENDING, untouched",
                id, exchange.getMessage().getHeader(ExchangeNames.ERROR));
    }

    static String describe(Throwable cause) {
        String text = cause == null ? "unknown failure" : cause.getClass().getName() + ": " + cause.getMessage();
        Throwable root = cause == null ? null : NestedExceptionUtils.getMostSpecificCause(cause);
        if (root != cause) {
            // a wrapper's own message can say nothing (Spring's JMS exceptions: "Uncategorized exception occurred
            // during JMS processing"): what went wrong is at the bottom
            text += " (caused by " + root.getClass().getName() + ": " + root.getMessage() + ")";
        }
        return text.length() > MAX_LENGTH ? text.substring(0, MAX_LENGTH) : text;
    }
}
