package io.outboxrelay.tracing;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import org.apache.camel.CamelContext;
import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this process traces, and with what: the OpenTelemetry Java agent's SDK when the agent is attached (or another
 * registered globally), else an SDK made by OpenTelemetry's autoconfigure module from its own environment (any
 * {@code OTEL_*} variable or {@code otel.*} system property); with neither, off: no SDK, no exporter thread, and the
 * steps that trace do nothing. One per Camel context (the jar, or a Camel K Integration with the inbox Kamelet), a
 * service of it: the SDK it made is flushed and closed when the context stops, after its routes.
 */
public final class Tracing extends ServiceSupport {

    /** The bean name under which a context's tracing is bound. */
    public static final String BEAN = "outboxTracing";

    /**
     * Defaults under OpenTelemetry's environment. The relay exports traces only: Prometheus scrapes its metrics, its
     * logs go to the console. Its span queue holds several claims' batches (the SDK's 2048 spans drop spans while a
     * backlog drains), exported in batches of one claim's size. Its spans carry at most 7 attributes: the SDK sizes
     * each span's attribute table by the limit (16 slots at its default of 128), and at tens of thousands of spans a
     * second that table was a quarter of the tracing's allocations (measured: docs/BENCHMARKS.md).
     */
    private static final Map<String, String> DEFAULTS = Map.of(
            "otel.service.name", "outbox-relay",
            "otel.metrics.exporter", "none",
            "otel.logs.exporter", "none",
            "otel.bsp.max.queue.size", "16384",
            "otel.bsp.max.export.batch.size", "2048",
            "otel.span.attribute.count.limit", "8");

    private static final Logger LOG = LoggerFactory.getLogger(Tracing.class);

    private static final String AGENT_CLASS = "io.opentelemetry.javaagent.OpenTelemetryAgent";

    private final Tracer tracer;
    private final TextMapPropagator propagator;
    private final OpenTelemetrySdk owned;

    private Tracing(OpenTelemetry openTelemetry, OpenTelemetrySdk owned) {
        this.tracer = openTelemetry == null ? null : openTelemetry.getTracer("io.outboxrelay");
        this.propagator = openTelemetry == null ? null : openTelemetry.getPropagators().getTextMapPropagator();
        this.owned = owned;
    }

    /** Tracing off. */
    public static Tracing off() {
        return new Tracing(null, null);
    }

    /** The context's tracing, made from this process's environment the first time it is asked for. */
    public static synchronized Tracing of(CamelContext context) {
        Tracing bound = context.getRegistry().lookupByNameAndType(BEAN, Tracing.class);
        if (bound != null) {
            return bound;
        }
        Tracing tracing = fromEnvironment(System.getenv(), System.getProperties());
        context.getRegistry().bind(BEAN, tracing);
        try {
            context.addService(tracing, true, true);
        } catch (Exception e) {
            throw new IllegalStateException("cannot start tracing", e);
        }
        return tracing;
    }

    static Tracing fromEnvironment(Map<String, String> environment, Properties systemProperties) {
        if (agentAttached()) {
            LOG.info("Tracing: spans go to the OpenTelemetry Java agent");
            return new Tracing(GlobalOpenTelemetry.get(), null);
        }
        if (!isConfigured(environment, systemProperties)) {
            return off();
        }
        OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
                .addPropertiesSupplier(() -> new HashMap<>(DEFAULTS))
                // closed with the context (doStop), after the last spans of a stop ended
                .disableShutdownHook()
                .build()
                .getOpenTelemetrySdk();
        LOG.info("Tracing: spans exported as OpenTelemetry's environment configures (OTEL_*)");
        return new Tracing(sdk, sdk);
    }

    /** OpenTelemetry's environment names anything, and does not disable the SDK. */
    static boolean isConfigured(Map<String, String> environment, Properties systemProperties) {
        String disabled = environment.getOrDefault("OTEL_SDK_DISABLED",
                systemProperties.getProperty("otel.sdk.disabled", "false"));
        if (Boolean.parseBoolean(disabled.trim())) {
            return false;
        }
        return environment.keySet().stream().anyMatch(name -> name.startsWith("OTEL_"))
                || systemProperties.stringPropertyNames().stream().anyMatch(name -> name.startsWith("otel."));
    }

    private static boolean agentAttached() {
        if (GlobalOpenTelemetry.isSet()) {
            return true;
        }
        try {
            Class.forName(AGENT_CLASS, false, ClassLoader.getSystemClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    public boolean isOn() {
        return tracer != null;
    }

    Tracer tracer() {
        return tracer;
    }

    TextMapPropagator propagator() {
        return propagator;
    }

    @Override
    protected void doStop() {
        if (owned != null) {
            owned.shutdown().join(10, TimeUnit.SECONDS);
        }
    }
}
