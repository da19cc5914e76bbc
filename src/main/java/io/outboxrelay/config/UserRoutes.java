package io.outboxrelay.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import io.outboxrelay.settings.ConsoleSettings;
import org.apache.camel.main.BaseMainSupport;
import org.apache.camel.main.MainListenerSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads the built-in routes plus the YAML DSL routes (*.camel.yaml) of outbox.routes-dir. Camel fails on a file:
 * pattern whose directory does not exist, and a relay without extra routes is the common case, so the directory is
 * only added when it is there. The built-in routes are named one by one: a classpath wildcard makes Camel read every
 * entry of the (shaded, 57 MB) jar to list them, about 1.5 s of every start. The console's routes are added when the
 * console is configured.
 */
public class UserRoutes extends MainListenerSupport {

    private static final Logger LOG = LoggerFactory.getLogger(UserRoutes.class);
    static final List<String> BUILT_IN_ROUTES =
            List.of("claim.camel.yaml", "failure.camel.yaml", "heartbeat.camel.yaml",
                    "retention.camel.yaml", "backlog-metrics.camel.yaml", "health.camel.yaml",
                    "inbox.camel.yaml");
    static final String CONSOLE_ROUTES = "console.camel.yaml";
    static final String BUILT_IN = BUILT_IN_ROUTES.stream().map(file -> "classpath:routes/" + file)
            .collect(Collectors.joining(","));

    @Override
    public void beforeConfigure(BaseMainSupport main) {
        String dir = main.getCamelContext().getPropertiesComponent().resolveProperty("outbox.routes-dir").orElse("");
        String pattern = BUILT_IN;
        if (ConsoleSettings.read(main.getCamelContext().getPropertiesComponent()::resolveProperty).enabled()) {
            // the console's routes exist only when it has users: otherwise /outbox/** is not served at all (404)
            pattern += ",classpath:routes/" + CONSOLE_ROUTES;
        }
        Path path = Path.of(dir).toAbsolutePath();
        if (!dir.isBlank() && Files.isDirectory(path)) {
            pattern += ",file:" + path + "/*.camel.yaml";
            LOG.info("Loading extra routes from {}", path);
        } else {
            LOG.info("No extra routes: {} is not a directory", path);
        }
        main.configure().withRoutesIncludePattern(pattern);
    }
}
