package io.outboxrelay.publish;

import java.net.ConnectException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

import io.outboxrelay.event.OutboxEvent;
import io.outboxrelay.event.ExchangeNames;
import org.apache.camel.ExchangeProperty;
import org.apache.camel.Processor;
import org.apache.camel.util.ObjectHelper;
import org.apache.kafka.common.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jms.JmsException;

/**
 * Knows whether the broker is down, so the relay waits instead of burning attempts on healthy events. A failed send has
 * the broker probed, as a step of its own (the failure routes' onExceptionOccurred, {@link #probeAfterFailure}; one
 * probe answers for a second of failures); a send that failed with a transport-class error is an outage when the last
 * probe found the broker unreachable ({@link #isBrokerUnreachable}: answered from that probe, no I/O). Then nothing
 * more of the claim is sent and claims pause; the outage starts the probe route (routes/health.camel.yaml,
 * outbox-broker-probe), which probes every second while it lasts, and the first answer ends it and wakes the claims:
 * publishing resumes within about a second of the broker's return. While the broker is up nothing probes but the
 * readiness check. A broker that answers but rejects a message is the message's problem:
 * an ordinary failed attempt.
 */
public class BrokerOutage {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerOutage.class);
    /** One probe answers for the failures of this long (a batch of failing events does not probe per event). */
    static final Duration PROBE_INTERVAL = Duration.ofSeconds(1);

    private final BrokerProbe probe;
    private final Clock clock;
    private final Runnable startProbing;
    private final AtomicReference<Instant> lastProbe = new AtomicReference<>(Instant.MIN);
    private volatile String lastProblem;
    private volatile boolean down;

    /** @param startProbing starts the probe route (outbox-broker-probe) when an outage begins */
    public BrokerOutage(BrokerProbe probe, Clock clock, Runnable startProbing) {
        this.probe = probe;
        this.clock = clock;
        this.startProbing = startProbing;
    }

    /**
     * The failure routes' onExceptionOccurred step: after a transport-class error (the failure routes' outage clauses
     * list the same classes), probes the broker unless a probe answered within the last second. One failing thread
     * probes; the others carry on with the last answer.
     */
    public Processor probeAfterFailure() {
        return exchange -> {
            Instant last = lastProbe.get();
            Instant now = clock.instant();
            if (isTransportFailure(exchange.getException()) && !now.isBefore(last.plus(PROBE_INTERVAL))
                    && lastProbe.compareAndSet(last, now)) {
                lastProblem = probe.problem();
            }
        };
    }

    /** A timeout or connection error, which an unreachable broker causes (and a broker's answer does not). */
    static boolean isTransportFailure(Throwable failure) {
        return ObjectHelper.getException(RetriableException.class, failure) != null
                || ObjectHelper.getException(ConnectException.class, failure) != null
                || ObjectHelper.getException(JmsException.class, failure) != null;
    }

    /** The failure routes' question when a send failed with a transport-class error: is the broker unreachable? */
    public boolean isBrokerUnreachable() {
        return down || lastProblem != null;
    }

    /**
     * The failure routes' step when the broker is unreachable: nothing more of the claim is sent, and claims pause
     * until the probe route finds the broker answering again.
     *
     * @param batch the claim whose send failed, or null
     */
    public synchronized void pauseClaims(@ExchangeProperty(ExchangeNames.BATCH) OutboxEvent.Batch batch) {
        if (batch != null) {
            batch.stopSending();
        }
        if (!down) {
            down = true;
            LOG.warn("Broker unreachable, pausing claims: {}", lastProblem);
            startProbing.run();
        }
    }

    /** The claim route's question: may the relay claim now (no outage)? */
    public boolean mayClaim() {
        return !down;
    }

    /** True while claims are paused for an outage (the probe route probes every second meanwhile). */
    public boolean isDown() {
        return down;
    }

    /**
     * The probe route's step while the outage lasts: probes the broker now.
     *
     * @return true when the broker answers again: the outage is over, claims resume
     */
    public synchronized boolean probeBroker() {
        String problem = probe.problem();
        lastProbe.set(clock.instant());
        lastProblem = problem;
        if (problem == null && down) {
            down = false;
            LOG.info("Broker reachable again, resuming claims");
            return true;
        }
        return false;
    }
}
