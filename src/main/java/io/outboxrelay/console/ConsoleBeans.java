package io.outboxrelay.console;

import java.time.Duration;

import javax.sql.DataSource;

import io.outboxrelay.replay.AuditTrail;
import io.outboxrelay.settings.ConsoleSettings;
import io.outboxrelay.settings.Database;
import io.outboxrelay.settings.SettingsCatalogue;
import io.outboxrelay.settings.TableName;
import org.apache.camel.CamelContext;
import org.apache.camel.console.DevConsoleRegistry;
import org.apache.camel.spi.Registry;
import org.apache.camel.spi.RestConfiguration;

/**
 * The operator console's beans, for routes/console.camel.yaml; bound only when the console is configured (its
 * routes are loaded only then: config.UserRoutes). The htpasswd files are read here, at startup: a missing file or a
 * bad entry is bad configuration.
 */
public final class ConsoleBeans {

    /** Where Camel serves the API's OpenAPI document. */
    static final String OPENAPI_PATH = "/outbox/api/openapi.json";

    private ConsoleBeans() {
    }

    /**
     * @param summaryInterval how old a summary may be before a request has it computed again (the backlog gauges'
     *                        outbox.metrics.refresh-ms)
     */
    public static void bind(CamelContext context, ConsoleSettings settings, DataSource dataSource, Database database,
            TableName table, boolean failedBlocksKey, Duration summaryInterval) {
        if (!settings.enabled()) {
            return;
        }
        ConsoleAccess access = new ConsoleAccess(
                Htpasswd.read(SettingsCatalogue.CONSOLE_VIEWERS.key(), settings.consoleViewers()),
                Htpasswd.read(SettingsCatalogue.CONSOLE_OPERATORS.key(), settings.consoleOperators()));
        ConsoleDatabase consoleDatabase = new ConsoleDatabase(dataSource, database, table);
        OutboxSummary summary = new OutboxSummary(consoleDatabase, failedBlocksKey);
        Registry registry = context.getRegistry();
        registry.bind("consoleAccess", access);
        SummarySnapshots snapshots = new SummarySnapshots(summary,
                context.getExecutorServiceManager().newSingleThreadExecutor(summary, "OutboxConsoleSummary"),
                summaryInterval);
        registry.bind("consoleSummary", snapshots);
        // the first summary is ready before anyone asks (once the context has started: the schema is migrated)
        try {
            context.addStartupListener((started, alreadyStarted) -> snapshots.refreshInBackground());
        } catch (Exception e) {
            throw new IllegalStateException("cannot watch the context's start", e);
        }
        registry.bind("consoleEvents", new EventBrowser(consoleDatabase));
        registry.bind("consoleReplay", new ConsoleReplay(consoleDatabase, access,
                new AuditTrail(database, table)));
        registry.bind("consolePage", new ConsolePage());

        // the REST DSL on platform-http: with no camel.server, that is the management server's router
        RestConfiguration rest = context.getRestConfiguration();
        rest.setComponent("platform-http");
        rest.setApiContextPath(OPENAPI_PATH);
        rest.setBindingMode(RestConfiguration.RestBindingMode.off);
        // the page's two verbs share one route (console-page): kept as routes of their own, not inlined
        rest.setInlineRoutes(false);

        OutboxDevConsole devConsole = new OutboxDevConsole(summary);
        devConsole.setCamelContext(context);
        DevConsoleRegistry consoles = context.getCamelContextExtension().getContextPlugin(DevConsoleRegistry.class);
        if (consoles != null) {
            consoles.register(devConsole);
        } else {
            registry.bind("outboxDevConsole", devConsole);
        }
    }
}
