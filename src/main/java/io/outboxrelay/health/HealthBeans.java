package io.outboxrelay.health;

import java.util.function.Consumer;

import io.outboxrelay.publish.BrokerProbe;
import io.outboxrelay.schema.SchemaMigration;
import io.outboxrelay.settings.RelaySettings;
import org.apache.camel.CamelContext;

/** The readiness checks, found by Camel's health registry in the bean registry, probed by the health routes. */
public final class HealthBeans {

    private HealthBeans() {
    }

    /** @param services adds a service stopped with the context */
    public static void bind(CamelContext context, RelaySettings settings, BrokerProbe probe, SchemaMigration schema,
            Consumer<Object> services) {
        add(context, "brokerHealthCheck", new BrokerHealthCheck(probe), services);
        add(context, "databaseHealthCheck", new DatabaseHealthCheck(settings.dbUrl(), settings.dbUser(),
                settings.dbPassword(), schema), services);
    }

    private static void add(CamelContext context, String name, BackgroundHealthCheck check,
            Consumer<Object> services) {
        check.setCamelContext(context);
        context.getRegistry().bind(name, check);
        if (check instanceof org.apache.camel.Service service) {
            services.accept(service);
        }
    }
}
