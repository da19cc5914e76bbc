package io.outboxrelay.claim;

import java.util.Map;

import io.outboxrelay.config.ClaimingFactory;
import org.apache.camel.Endpoint;
import org.apache.camel.support.DefaultComponent;

/**
 * The {@code outbox:} component: a route that starts {@code from: outbox:events} receives every event of the outbox
 * table as its own exchange (body: {@link OutboxEvent}), in order per key, claimed from this instance's partitions.
 * An exchange that completes normally is marked PUBLISHED; one that fails is recorded as a failed attempt; one the
 * route marks {@link OutboxConsumer#RELEASED} is given back. The relay's main configures it with its settings; used
 * on its own (a Kamelet), each endpoint is configured by its parameters ({@link ClaimingFactory#standalone}).
 */
public class OutboxComponent extends DefaultComponent {

    private final Claiming claiming;

    /** For service discovery: each endpoint configured by its parameters. */
    public OutboxComponent() {
        this(null);
    }

    public OutboxComponent(Claiming claiming) {
        this.claiming = claiming;
    }

    @Override
    protected Endpoint createEndpoint(String uri, String remaining, Map<String, Object> parameters) {
        return new OutboxEndpoint(uri, this,
                claiming != null ? claiming : ClaimingFactory.standalone(getCamelContext(), parameters));
    }
}
