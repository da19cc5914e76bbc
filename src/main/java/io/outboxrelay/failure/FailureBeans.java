package io.outboxrelay.failure;

import io.outboxrelay.metrics.RelayMetrics;
import org.apache.camel.CamelContext;

/** The record-failure route's steps, bound one way for the jar, the Kamelet and the route tests. */
public final class FailureBeans {

    private FailureBeans() {
    }

    /** Binds failedAttempts. */
    public static void bind(CamelContext context, RelayMetrics metrics) {
        context.getRegistry().bind("failedAttempts", new FailedAttempts(metrics));
    }
}
