package io.outboxrelay.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.StartupListener;
import org.apache.camel.spi.PropertiesComponent;
import org.apache.camel.spi.Resource;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.ResourceHelper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay inside the postgresql-outbox-source Kamelet: the relay's own routes and SQL (claim, publish, failure,
 * heartbeat, retention), with the Kamelet's parameters as the relay's settings and every event sent to the Kamelet's
 * route, {@value #SINK}, which hands it to the Pipe's sink ({@code kamelet:sink}). What the sink accepts is marked
 * PUBLISHED; what it refuses is a failed attempt, as in the relay.
 * <p>
 * A Kamelet is one route template: it cannot bring routes of its own. This bean, created with the Kamelet's route,
 * installs the relay's routes and beans once the context has fully started (routes added while it starts would not
 * be started). One such source per Camel context: the relay's route ids are fixed.
 */
public class KameletRelay implements CamelContextAware {

    private static final Logger LOG = LoggerFactory.getLogger(KameletRelay.class);

    private CamelContext context;

    /** The Kamelet's route: every event of the outbox is sent here. */
    public static final String SINK = "direct:outbox-kamelet-sink";

    private static final String[] ROUTES = {"claim.camel.yaml", "publish.camel.yaml", "failure.camel.yaml",
        "heartbeat.camel.yaml", "retention.camel.yaml", "health.camel.yaml"};

    private final Map<String, String> settings = new LinkedHashMap<>(Map.of("outbox.endpoint", SINK));

    // The Kamelet's parameters (postgresql-outbox-source.kamelet.yaml), as the relay's settings

    public void setDatabaseUrl(String value) {
        settings.put("outbox.db.url", value);
    }

    public void setUsername(String value) {
        settings.put("outbox.db.user", value);
    }

    public void setPassword(String value) {
        settings.put("outbox.db.password", value);
    }

    public void setTable(String value) {
        settings.put("outbox.table", value);
    }

    public void setBatchSize(String value) {
        settings.put("outbox.batch-size", value);
    }

    public void setPollDelay(String value) {
        settings.put("outbox.poll-delay-ms", value);
    }

    public void setLeaseSeconds(String value) {
        settings.put("outbox.lease", "PT" + value + "S");
    }

    public void setMaxAttempts(String value) {
        settings.put("outbox.max-attempts", value);
    }

    public void setBackoffSeconds(String value) {
        settings.put("outbox.backoff.initial", "PT" + value + "S");
    }

    public void setMaxBackoffSeconds(String value) {
        settings.put("outbox.backoff.max", "PT" + value + "S");
    }

    public void setSource(String value) {
        settings.put("outbox.source", value);
    }

    public void setPartitions(String value) {
        settings.put("outbox.partitions", value);
    }

    @Override
    public void setCamelContext(CamelContext context) {
        this.context = context;
        try {
            context.addStartupListener(new StartupListener() {
                @Override
                public void onCamelContextStarted(CamelContext started, boolean alreadyStarted) {
                    // routes added now would not start: wait until the context has started them all
                }

                @Override
                public void onCamelContextFullyStarted(CamelContext started, boolean alreadyStarted) throws Exception {
                    install(started);
                }
            });
        } catch (Exception e) {
            throw new IllegalStateException("cannot install the relay's routes", e);
        }
    }

    @Override
    public CamelContext getCamelContext() {
        return context;
    }

    /** The Kamelet route's first step: nothing to do; referring to this bean is what creates it with the route. */
    public void installed() {
        // the relay's routes are installed when the context has started
    }

    private void install(CamelContext context) throws Exception {
        LOG.info("Installing the relay's routes for the Kamelet (table {})", settings.get("outbox.table"));
        PropertiesComponent properties = context.getPropertiesComponent();
        // the relay's defaults (its application.properties), then the Kamelet's parameters over them
        defaults().forEach((key, value) -> {
            if (properties.resolveProperty((String) key).isEmpty()) {
                properties.addOverrideProperty((String) key, (String) value);
            }
        });
        settings.forEach(properties::addOverrideProperty);
        new RelayConfiguration().configure(context);
        // in one go: the route configurations (failure.camel.yaml) are in place before the routes that use them
        Resource[] routes = new Resource[ROUTES.length];
        for (int i = 0; i < ROUTES.length; i++) {
            routes[i] = ResourceHelper.resolveMandatoryResource(context, "classpath:routes/" + ROUTES[i]);
        }
        PluginHelper.getRoutesLoader(context).loadRoutes(routes);
    }

    private static Properties defaults() {
        Properties defaults = new Properties();
        try (InputStream in = KameletRelay.class.getClassLoader().getResourceAsStream("application.properties")) {
            if (in != null) {
                defaults.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        defaults.stringPropertyNames().stream().filter(key -> !key.startsWith("outbox.") && !key.startsWith("inbox.")
                && !key.startsWith("camel.component.kafka."))
                .toList().forEach(defaults::remove);
        return defaults;
    }
}
