package io.outboxrelay.config;

import io.outboxrelay.settings.RelaySettings;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.PropertiesComponent;

/**
 * Reads and validates the relay's settings, then overrides the properties that routes and SQL text read with their
 * validated, normalised form: the qualified table name (spliced into the SQL) and the heartbeat in milliseconds (the
 * timer's period; the setting is an ISO-8601 duration).
 */
final class NormalisedProperties {

    private NormalisedProperties() {
    }

    static RelaySettings apply(CamelContext context) {
        PropertiesComponent properties = context.getPropertiesComponent();
        RelaySettings settings = RelaySettings.read(properties::resolveProperty,
                scheme -> context.getComponent(scheme) != null);
        properties.addOverrideProperty("outbox.table", settings.table().qualified());
        properties.addOverrideProperty("outbox.instance.heartbeat-ms", Long.toString(settings.heartbeat().toMillis()));
        return settings;
    }
}
