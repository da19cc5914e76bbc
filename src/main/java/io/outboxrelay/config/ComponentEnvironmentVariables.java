package io.outboxrelay.config;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

import org.apache.camel.main.BaseMainSupport;
import org.apache.camel.main.MainHelper;
import org.apache.camel.main.MainListenerSupport;

/**
 * Makes {@code CAMEL_COMPONENT_*} environment variables configure components, as the contract promises
 * ({@code CAMEL_COMPONENT_KAFKA_BROKERS} for {@code camel.component.kafka.brokers}). Camel 4.18.0 means to do this
 * but its filter compares upper-case variable names with lower-case prefixes and never matches; system properties
 * do work, so each variable is handed over as one, using Camel's own name mapping. An explicit -D setting wins.
 */
public class ComponentEnvironmentVariables extends MainListenerSupport {

    private static final String PREFIX = "CAMEL_COMPONENT_";

    @Override
    public void beforeConfigure(BaseMainSupport main) {
        Map<String, String> variables = new HashMap<>();
        System.getenv().forEach((name, value) -> {
            String upper = name.toUpperCase(Locale.US);
            // Camel skips Kubernetes service-link variables the same way
            boolean serviceLink = upper.endsWith("_PORT") || upper.contains("_PORT_")
                    || upper.endsWith("_SERVICE_HOST");
            if (upper.startsWith(PREFIX) && !serviceLink) {
                variables.put(upper, value);
            }
        });
        Properties properties = new Properties();
        MainHelper helper = new MainHelper();
        helper.addComponentEnvVariables(variables, properties, false);
        helper.addComponentEnvVariables(variables, properties, true);
        properties.forEach((key, value) -> {
            if (System.getProperty(key.toString()) == null) {
                System.setProperty(key.toString(), value.toString());
            }
        });
    }
}
