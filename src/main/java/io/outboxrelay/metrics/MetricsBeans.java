package io.outboxrelay.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import org.apache.camel.CamelContext;

/** The relay's meters, bound one way for the jar, the Kamelet and the route tests. */
public final class MetricsBeans {

    private MetricsBeans() {
    }

    /** Binds relayMetrics, whose steps the claim and failure routes call, on the given meter registry. */
    public static RelayMetrics bind(CamelContext context, MeterRegistry meters) {
        RelayMetrics metrics = new RelayMetrics(meters);
        context.getRegistry().bind("relayMetrics", metrics);
        return metrics;
    }
}
