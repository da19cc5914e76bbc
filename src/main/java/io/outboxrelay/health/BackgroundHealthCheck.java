package io.outboxrelay.health;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Camel readiness check that reports the latest result of a probe run in the background, by a timer route
 * (routes/health.camel.yaml, every outbox.health.probe-interval-ms): the health endpoints answer at once, whatever is
 * down. Camel's health registry cannot do this itself: it runs each check's {@code doCall} on the HTTP request's
 * thread, one after another, so a probe of a database or broker that does not answer would hold every health request
 * (and an orchestrator's 1 s probe times out) until the probe's own timeout. A probe still waiting for its answer
 * after {@link #NO_ANSWER} counts as DOWN at once, without waiting for that timeout. One log line when a check goes
 * DOWN, one when it is UP again.
 * <p>
 * Readiness only: an outage is waited out, not fixed by restarting the relay, so liveness never depends on it.
 */
public abstract class BackgroundHealthCheck extends AbstractHealthCheck {

    static final Duration NO_ANSWER = Duration.ofSeconds(2);

    private static final Logger LOG = LoggerFactory.getLogger(BackgroundHealthCheck.class);
    private static final String NOT_CHECKED = "not checked yet";

    private volatile String problem = NOT_CHECKED;
    /** System.nanoTime() when the probe in progress started, or Long.MIN_VALUE while none is. */
    private volatile long probeStarted = Long.MIN_VALUE;

    protected BackgroundHealthCheck(String id) {
        super("outbox", id);
    }

    /** @return null when the dependency answers as it should, else what is wrong; may block up to its own timeout */
    protected abstract String probe();

    @Override
    public boolean isLiveness() {
        return false;
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        long started = probeStarted;
        long waiting = started == Long.MIN_VALUE ? 0 : System.nanoTime() - started;
        if (waiting > NO_ANSWER.toNanos()) {
            builder.message(getId() + " has not answered for " + TimeUnit.NANOSECONDS.toMillis(waiting) + " ms").down();
            return;
        }
        String latest = problem;
        if (latest == null) {
            builder.up();
        } else {
            builder.message(latest).down();
        }
    }

    /** The health route's step: probes now and keeps the result for the health endpoints. */
    public void probeNow() {
        probeStarted = System.nanoTime();
        try {
            String found = probe();
            String before = problem;
            if (found != null && before == null) {
                LOG.warn("Readiness check {} DOWN: {}", getId(), found);
            } else if (found == null && before != null && !NOT_CHECKED.equals(before)) {
                LOG.info("Readiness check {} UP again", getId());
            }
            problem = found;
        } catch (RuntimeException e) {
            problem = getId() + " probe failed: " + e;
        } finally {
            probeStarted = Long.MIN_VALUE;
        }
    }
}
