package io.outboxrelay.health;

import java.time.Duration;

import io.outboxrelay.publish.BrokerProbe;

/** Readiness: the transport's broker (Kafka, or the JMS broker) answers. */
public class BrokerHealthCheck extends BackgroundHealthCheck {

    private final BrokerProbe probe;

    public BrokerHealthCheck(BrokerProbe probe, Duration interval) {
        super("broker", interval);
        this.probe = probe;
    }

    @Override
    protected String probe() {
        return probe.problem();
    }
}
