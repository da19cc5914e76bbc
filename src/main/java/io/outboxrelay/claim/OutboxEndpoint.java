package io.outboxrelay.claim;

import org.apache.camel.Consumer;
import org.apache.camel.Processor;
import org.apache.camel.Producer;
import org.apache.camel.support.DefaultEndpoint;

/** {@code outbox:events}: the claimed events of the outbox, one exchange each (consumer only). */
public class OutboxEndpoint extends DefaultEndpoint {

    private final Claiming claiming;
    private OutboxConsumer consumer;

    OutboxEndpoint(String uri, OutboxComponent component, Claiming claiming) {
        super(uri, component);
        this.claiming = claiming;
    }

    @Override
    public synchronized Consumer createConsumer(Processor processor) throws Exception {
        if (consumer != null) {
            throw new IllegalStateException("only one route may consume " + getEndpointUri()
                    + ": it owns this instance's partitions");
        }
        consumer = new OutboxConsumer(this, processor, claiming);
        configureConsumer(consumer);
        return consumer;
    }

    @Override
    public Producer createProducer() {
        throw new UnsupportedOperationException("outbox: is a consumer only: write events with an INSERT");
    }
}
