package io.outboxrelay.publish;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import io.outboxrelay.event.EventBatch;
import io.outboxrelay.event.ExchangeNames;
import org.apache.camel.ExchangeProperty;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Knows whether the broker is down, so the relay backs off instead of burning attempts on healthy events. A publish
 * that fails with a transport-class error (timeout, connection) only counts as an outage if the broker does not
 * answer a probe either; then claiming pauses, with exponential backoff, until a probe succeeds. A broker that
 * answers but rejects a message is the message's problem: that is an ordinary failed attempt.
 */
public class BrokerOutage {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerOutage.class);
    private static final Duration FIRST_PAUSE = Duration.ofSeconds(1);
    private static final Duration LONGEST_PAUSE = Duration.ofSeconds(10);
    /** One probe answers for a whole batch of failing events. */
    private static final Duration PROBE_CACHE = Duration.ofSeconds(1);

    private final BrokerProbe probe;
    private final Clock clock;

    private boolean down;
    private Duration pause = FIRST_PAUSE;
    private Instant pausedUntil = Instant.MIN;
    private String lastProblem;
    private Instant lastProbe = Instant.MIN;

    public BrokerOutage(BrokerProbe probe, Clock clock) {
        this.probe = probe;
        this.clock = clock;
    }

    /**
     * The failure routes' question when a publish failed with a transport-class error: is the broker itself
     * unreachable? A question only (one probe answers for a second of failures); the routes' answer to a yes is
     * {@link #pauseClaims}.
     */
    public synchronized boolean isBrokerUnreachable() {
        return down || probeCached() != null;
    }

    /**
     * The failure routes' step when the broker is unreachable: nothing more of the claim is sent, and claims pause;
     * while the outage lasts, a probe after each pause decides ({@link #mayClaim}).
     *
     * @param batch the claim whose send failed, or null
     */
    public synchronized void pauseClaims(@ExchangeProperty(ExchangeNames.BATCH) EventBatch batch) {
        if (batch != null) {
            batch.stopSending();
        }
        if (!down) {
            down = true;
            pause = FIRST_PAUSE;
            pausedUntil = clock.instant().plus(pause);
            LOG.warn("Broker unreachable, pausing claims: {}", lastProblem);
        }
    }

    /** May the relay claim now? While down, a probe after each pause decides; the pause doubles up to 10 s. */
    public synchronized boolean mayClaim() {
        if (!down) {
            return true;
        }
        if (clock.instant().isBefore(pausedUntil)) {
            return false;
        }
        // a pause is at least as long as the probe cache: always a fresh answer here
        String problem = probeNow();
        if (problem == null) {
            down = false;
            LOG.info("Broker reachable again, resuming claims");
            return true;
        }
        pause = pause.multipliedBy(2).compareTo(LONGEST_PAUSE) > 0 ? LONGEST_PAUSE : pause.multipliedBy(2);
        pausedUntil = clock.instant().plus(pause);
        LOG.warn("Broker still unreachable, next probe in {}s: {}", pause.toSeconds(), problem);
        return false;
    }

    /** True while claims are paused for an outage. */
    public synchronized boolean isDown() {
        return down;
    }

    private String probeCached() {
        return clock.instant().isAfter(lastProbe.plus(PROBE_CACHE)) ? probeNow() : lastProblem;
    }

    private String probeNow() {
        lastProblem = probe.problem();
        lastProbe = clock.instant();
        return lastProblem;
    }
}
