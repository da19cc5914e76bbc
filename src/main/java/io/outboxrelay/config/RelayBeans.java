package io.outboxrelay.config;

import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;

/**
 * The relay's beans for a runtime that starts Camel itself and loads the relay's routes as sources (Camel K):
 * {@code camel.main.configuration-classes=io.outboxrelay.config.RelayBeans}. Configuration classes run before
 * component options are bound, so the jms component finds the relay's connection factory.
 * The jar's own main binds the same beans earlier, from a main listener, so user routes' YAML beans can use them.
 */
public class RelayBeans implements CamelConfiguration {

    @Override
    public void configure(CamelContext context) {
        new RelayConfiguration().configure(context);
    }
}
