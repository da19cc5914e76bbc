package io.outboxrelay.publish;

import java.util.Map;

import org.apache.camel.Exchange;

/** One event of a round: its claimed row and, once its send completed, the exchange that tells how it went. */
final class Delivery {

    private final Map<String, Object> row;
    private volatile Exchange outcome;

    Delivery(Map<String, Object> row) {
        this.row = row;
    }

    Map<String, Object> row() {
        return row;
    }

    String id() {
        return row.get("id").toString();
    }

    void complete(Exchange sent) {
        outcome = sent;
    }

    /** False while the broker has not answered: such an event is neither marked nor released, its lease decides. */
    boolean isCompleted() {
        return outcome != null;
    }

    boolean isPublished() {
        Exchange sent = outcome;
        return sent != null && sent.getException() == null
                && sent.getProperty(BatchPublisher.PUBLISHED, false, Boolean.class);
    }

    /** Given back unsent (the broker was down), so no attempt was counted. */
    boolean isReleased() {
        Exchange sent = outcome;
        return sent != null && sent.getProperty(BatchPublisher.RELEASED, false, Boolean.class);
    }
}
