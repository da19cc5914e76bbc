package io.outboxrelay.config;

import io.outboxrelay.settings.InboxSettings;
import io.outboxrelay.settings.RelaySettings;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.PropertiesComponent;

/**
 * Reads and validates the relay's settings, then overrides the properties that routes and SQL text read with their
 * validated, normalised form: the qualified table names (spliced into the SQL). Other derived values are the
 * settings' own methods, which the routes read from the bean ({{bean:relaySettings.heartbeatMillis}}).
 */
final class NormalisedProperties {

    private NormalisedProperties() {
    }

    static RelaySettings apply(CamelContext context) {
        PropertiesComponent properties = context.getPropertiesComponent();
        RelaySettings settings = RelaySettings.read(properties::resolveProperty,
                scheme -> context.getComponent(scheme) != null);
        properties.addOverrideProperty("outbox.table", settings.table().qualified());
        return settings;
    }

    /** The inbox's settings; its table name, qualified, is spliced into the inbox's SQL like the outbox's. */
    static InboxSettings applyInbox(CamelContext context) {
        PropertiesComponent properties = context.getPropertiesComponent();
        InboxSettings settings = InboxSettings.read(properties::resolveProperty);
        properties.addOverrideProperty("inbox.table", settings.inboxTable().qualified());
        return settings;
    }
}
