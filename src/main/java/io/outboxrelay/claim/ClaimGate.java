package io.outboxrelay.claim;

import io.outboxrelay.publish.BrokerOutage;
import io.outboxrelay.schema.SchemaMigration;
import org.apache.camel.Consumer;
import org.apache.camel.Endpoint;
import org.apache.camel.support.DefaultPollingConsumerPollStrategy;
import org.apache.camel.support.service.ServiceSupport;

/**
 * The claim consumer's poll strategy: a poll claims rows only when the table is in place (migrations applied, also
 * when the database came up after the relay) and the broker is not known to be down. Skipping the poll keeps rows
 * unclaimed, so nothing waits on a lease.
 */
public class ClaimGate extends DefaultPollingConsumerPollStrategy {

    private final SchemaMigration schema;
    private final BrokerOutage brokerOutage;

    public ClaimGate(SchemaMigration schema, BrokerOutage brokerOutage) {
        this.schema = schema;
        this.brokerOutage = brokerOutage;
    }

    @Override
    public boolean begin(Consumer consumer, Endpoint endpoint) {
        // no new claim once shutdown has begun: the batch in flight finishes, nothing new is taken
        boolean stopping = endpoint.getCamelContext().isStopping()
                || consumer instanceof ServiceSupport service && !service.isRunAllowed();
        return !stopping && schema.isReady() && brokerOutage.mayClaim();
    }
}
