package io.outboxrelay.health;

import io.outboxrelay.publish.BrokerProbe;

/** Readiness: the transport's broker (Kafka, or the JMS broker) answers. */
public class BrokerHealthCheck extends BackgroundHealthCheck {

    private final BrokerProbe probe;

    public BrokerHealthCheck(BrokerProbe probe) {
        super("broker");
        this.probe = probe;
    }

    @Override
    protected String probe() {
        return probe.problem();
    }
}
