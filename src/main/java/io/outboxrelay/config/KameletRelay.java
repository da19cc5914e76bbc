package io.outboxrelay.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

import io.outboxrelay.settings.Setting;
import io.outboxrelay.settings.SettingsCatalogue;

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
 * Why a bean that installs routes, and not the relay's path as the Kamelet's own templates: in Camel 4.18 a Kamelet
 * is one route template holding one route. camel-yaml-dsl's KameletRoutesBuilderLoader.builder reads a Kamelet's
 * {@code /spec/template} node into one {@code RouteTemplateDefinition} (there is no list of templates), and a
 * RouteTemplateDefinition holds one {@code RouteDefinition} (its single field {@code route}; the YAML's {@code route}
 * and {@code from} keys both call setRoute). The relay's path is a dozen routes that call each other (claim, publish,
 * mark, failure, heartbeat, retention), so the Kamelet's one route is the sink's, and this bean, created with it,
 * installs the relay's routes and beans once the context has fully started (routes added while it starts would not be
 * started). camelk.KameletLimitTest fails when Camel lifts the limit. The routes' ids are fixed, so a context holds one
 * outbox source: a second is refused at start ({@link #SECOND_SOURCE}).
 */
public class KameletRelay implements CamelContextAware {

    private static final Logger LOG = LoggerFactory.getLogger(KameletRelay.class);

    private CamelContext context;

    /** The Kamelet's route: every event of the outbox is sent here. */
    public static final String SINK = "direct:outbox-kamelet-sink";

    /** The one-line refusal of a second outbox source in a context. */
    static final String SECOND_SOURCE = "a second postgresql-outbox-source in one Camel context: the relay's routes "
            + "have fixed ids and a Kamelet is one route template holding one route (Camel 4.18), so each outbox "
            + "source needs an Integration or Pipe of its own";

    /** The registry name of the context's outbox source, which a second one finds. */
    private static final String BOUND_AS = "outboxKameletRelay";

    /** The context's outbox source, as the registry holds it. */
    private record FirstSource(KameletRelay relay) {
    }

    /**
     * The relay's routes (the jar's list), but the backlog gauges (their statement reads the table every
     * outbox.metrics.refresh-ms: a Pipe asks for the source, not its dashboard) and the inbox (a consumer's side).
     */
    private static final List<String> ROUTES = UserRoutes.BUILT_IN_ROUTES.stream()
            .filter(file -> !file.equals("backlog-metrics.camel.yaml") && !file.equals("inbox.camel.yaml")).toList();

    /**
     * The Kamelet's parameters (postgresql-outbox-source.kamelet.yaml's properties) and the relay's settings they set,
     * as the settings catalogue defines them: SettingsDefinedOnceTest checks the Kamelet's properties and their
     * defaults against it. Durations are given to the Kamelet in seconds.
     */
    static final Map<String, String> SETTINGS_OF_PARAMETERS = SettingsCatalogue.ALL.stream()
            .filter(setting -> setting.kameletParameter() != null)
            .collect(Collectors.toUnmodifiableMap(Setting::kameletParameter, Setting::key));

    /** The Kamelet's parameters, by their names in the Kamelet: its bean property {@code parameters[name]}. */
    private final Map<String, Object> parameters = new LinkedHashMap<>();

    public Map<String, Object> getParameters() {
        return parameters;
    }

    /** The relay's settings the parameters give, and the Kamelet's route as outbox.endpoint. */
    Map<String, String> settings() {
        Map<String, String> settings = new LinkedHashMap<>(Map.of("outbox.endpoint", SINK));
        parameters.forEach((name, value) -> {
            String key = SETTINGS_OF_PARAMETERS.get(name);
            if (key == null) {
                throw new IllegalArgumentException("not a parameter of the outbox Kamelet: " + name);
            }
            settings.put(key, setting(name, String.valueOf(value)));
        });
        return settings;
    }

    /** A parameter's value as the relay's setting: the Kamelet gives durations in seconds. */
    static String setting(String parameter, String value) {
        return parameter.endsWith("Seconds") ? "PT" + value.trim() + "S" : value;
    }

    @Override
    public void setCamelContext(CamelContext context) {
        Object first = context.getRegistry().lookupByName(BOUND_AS);
        if (first != null && ((FirstSource) first).relay() != this) {
            throw new IllegalStateException(SECOND_SOURCE);
        }
        // not this bean itself: the registry would give it the context again, and again
        context.getRegistry().bind(BOUND_AS, new FirstSource(this));
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
        Map<String, String> settings = settings();
        LOG.info("Installing the relay's routes for the Kamelet (table {})", settings.get("outbox.table"));
        PropertiesComponent properties = context.getPropertiesComponent();
        // the relay's defaults (the settings catalogue's), then the Kamelet's parameters over them
        defaults().forEach((key, value) -> {
            if (properties.resolveProperty(key).isEmpty()) {
                properties.addOverrideProperty(key, value);
            }
        });
        settings.forEach(properties::addOverrideProperty);
        new RelayConfiguration().configure(context);
        // in one go: the route configurations (failure.camel.yaml) are in place before the routes that use them
        Resource[] routes = new Resource[ROUTES.size()];
        for (int i = 0; i < routes.length; i++) {
            routes[i] = ResourceHelper.resolveMandatoryResource(context, "classpath:routes/" + ROUTES.get(i));
        }
        PluginHelper.getRoutesLoader(context).loadRoutes(routes);
    }

    /**
     * The relay's defaults for the routes' placeholders: each catalogue setting's default, and the Kafka component's
     * tuning the jar's application.properties gives (not settings of the relay's own).
     */
    private static Map<String, String> defaults() {
        Map<String, String> defaults = new LinkedHashMap<>();
        SettingsCatalogue.ALL.forEach(setting -> defaults.put(setting.key(), setting.defaultValue()));
        Properties shipped = new Properties();
        try (InputStream in = KameletRelay.class.getClassLoader().getResourceAsStream("application.properties")) {
            if (in != null) {
                shipped.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        shipped.stringPropertyNames().stream().filter(key -> key.startsWith("camel.component.kafka."))
                .forEach(key -> defaults.putIfAbsent(key, shipped.getProperty(key)));
        return defaults;
    }
}
