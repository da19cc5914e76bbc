package io.outboxrelay.config;

import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.camel.main.BaseMainSupport;
import org.apache.camel.main.MainListenerSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads the built-in routes plus the YAML DSL routes (*.camel.yaml) of outbox.routes-dir. Camel fails on a file:
 * pattern whose directory does not exist, and a relay without extra routes is the common case, so the directory is
 * only added when it is there.
 */
public class UserRoutes extends MainListenerSupport {

    private static final Logger LOG = LoggerFactory.getLogger(UserRoutes.class);
    static final String BUILT_IN = "classpath:routes/*.camel.yaml";

    @Override
    public void beforeConfigure(BaseMainSupport main) {
        String dir = main.getCamelContext().getPropertiesComponent().resolveProperty("outbox.routes-dir").orElse("");
        String pattern = BUILT_IN;
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
