package io.outboxrelay.health;

import java.util.Map;

import io.outboxrelay.publish.BrokerOutage;
import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;

/** Readiness: the transport's broker (Kafka, or the JMS broker) answers. */
public class BrokerHealthCheck extends AbstractHealthCheck {

    private final BrokerOutage brokerOutage;

    public BrokerHealthCheck(BrokerOutage brokerOutage) {
        super("outbox", "broker");
        this.brokerOutage = brokerOutage;
    }

    @Override
    public boolean isLiveness() {
        // a broker outage is waited out with claims paused, not fixed by restarting the relay
        return false;
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        String problem = brokerOutage.problem();
        if (problem == null) {
            builder.up();
        } else {
            builder.message(problem).down();
        }
    }
}
