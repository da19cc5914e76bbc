package io.outboxrelay.tracing;

import org.apache.camel.CamelContext;

/**
 * Tracing's beans: the context's tracing (OpenTelemetry's environment, or its agent), the send spans' event notifier
 * when it is on, and the inbox template's steps (which do nothing when it is off).
 */
public final class TracingBeans {

    private TracingBeans() {
    }

    /** @param endpointScheme outbox.endpoint's scheme: its sends are the publish attempts */
    public static void bind(CamelContext context, String endpointScheme) {
        Tracing tracing = Tracing.of(context);
        if (tracing.isOn()) {
            context.getManagementStrategy().addEventNotifier(new SendSpans(tracing, endpointScheme));
        }
        context.getRegistry().bind("inboxSpans", new InboxSpans(tracing));
    }
}
