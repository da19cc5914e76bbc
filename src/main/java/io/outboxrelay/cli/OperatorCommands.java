package io.outboxrelay.cli;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import io.outboxrelay.settings.InvalidSettingException;
import io.outboxrelay.settings.OperatorSettings;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * The operator's command line, in the relay's jar: {@code java -jar outbox-relay.jar status|failed|replay|help ...}.
 * A command reads the relay's own settings (application.properties, environment variables, system properties; see
 * {@link OperatorSettings}), opens one JDBC connection, does its work and returns an exit code. It starts no Camel
 * route and no HTTP server, so it can run beside the relay in its pod, with the same environment.
 *
 * <p>Exit codes: 0 done; 1 the database cannot be reached or a statement failed; 2 bad usage or a bad setting (one line
 * on stderr naming it); 3 a replay by id refused because an id is not a FAILED row (nothing changed).
 */
public final class OperatorCommands {

    public static final int EXIT_OK = 0;
    public static final int EXIT_DATABASE = 1;
    public static final int EXIT_BAD_USAGE = 2;
    public static final int EXIT_REPLAY_REFUSED = 3;

    private static final String PREFIX = "outbox-relay: ";
    private static final Set<String> HELP = Set.of("help", "--help", "-h");

    static final String USAGE = """
            Usage: java -jar outbox-relay.jar                  run the relay
                   java -jar outbox-relay.jar COMMAND [OPTIONS]  look at or act on the outbox table, then exit

            The commands use the relay's settings (application.properties, OUTBOX_DB_URL, OUTBOX_DB_USER,
            OUTBOX_DB_PASSWORD, OUTBOX_TABLE, OUTBOX_FAILED_BLOCKS_KEY, -Doutbox....) and start no routes or HTTP server:
            run them where the relay runs, with its environment.

            Commands:
              %s
                  PENDING rows (due now, in flight under a relay's lease, backing off before their next attempt), the
                  age of the oldest one, FAILED and PUBLISHED rows, keys held back.
              %s
                  FAILED rows, oldest first (at most 50 unless --limit): id, key, event type, attempts, created_at,
                  the first line of last_error (all of it with --json). A key is AGGREGATE_TYPE/AGGREGATE_ID.
              %s
                  Makes FAILED rows PENDING again (attempts 0, due now) in one transaction and wakes the running
                  relays. Never touches PENDING or PUBLISHED rows: if an --id is not a FAILED row, nothing is replayed
                  (exit 3). --dry-run shows what would be replayed and changes nothing.
              help
                  This text.

            Exit codes: 0 done, 1 database unreachable or database error, 2 bad usage or bad setting,
            3 replay refused (nothing changed).
            """.formatted(StatusCommand.USAGE, FailedCommand.USAGE, ReplayCommand.USAGE);

    private OperatorCommands() {
    }

    /**
     * Whether the arguments ask for a command rather than the relay: a first argument that is a word (a command, or a
     * mistyped one: that must not start a relay) or a request for help. No arguments, or Camel Main's own options
     * ({@code -duration 60}, ...), run the relay as before.
     */
    public static boolean isCommand(String[] args) {
        return args.length > 0 && (HELP.contains(args[0]) || !args[0].startsWith("-"));
    }

    /** Runs a command with the relay's settings, as {@code java -jar outbox-relay.jar COMMAND} does. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return run(args, relaySettings(), out, err);
    }

    /**
     * Runs a command.
     *
     * @param settings resolves a setting's key, e.g. outbox.db.url, to its value
     * @return the exit code
     */
    public static int run(String[] args, Function<String, Optional<String>> settings, PrintStream out,
            PrintStream err) {
        try {
            return dispatch(args, settings, out, err);
        } catch (CommandException e) {
            err.println(PREFIX + e.getMessage()
                    + (e.exitCode() == EXIT_BAD_USAGE ? " ('help' shows the usage)" : ""));
            return e.exitCode();
        } catch (InvalidSettingException e) {
            err.println(PREFIX + e.getMessage());
            return EXIT_BAD_USAGE;
        } catch (RuntimeException e) {
            err.println(PREFIX + (args.length > 0 ? args[0] : "command") + " failed: " + e);
            return EXIT_DATABASE;
        } finally {
            out.flush();
            err.flush();
        }
    }

    private static int dispatch(String[] args, Function<String, Optional<String>> settings, PrintStream out,
            PrintStream err) throws CommandException {
        if (args.length == 0 || HELP.contains(args[0])) {
            out.print(USAGE);
            return EXIT_OK;
        }
        List<String> options = Arrays.asList(args).subList(1, args.length);
        if (options.contains("--help")) {
            out.print(USAGE);
            return EXIT_OK;
        }
        OperatorCommand command = switch (args[0]) {
            case "status" -> StatusCommand.parse(options);
            case "failed" -> FailedCommand.parse(options);
            case "replay" -> ReplayCommand.parse(options);
            default -> throw CommandException.usage("unknown command '" + args[0]
                    + "': expected status, failed, replay or help (no command runs the relay)");
        };
        OperatorSettings operatorSettings = OperatorSettings.read(settings);
        try (Connection connection = OutboxDatabase.connect(operatorSettings)) {
            return command.run(connection, operatorSettings, out, err);
        } catch (SQLException e) {
            throw OutboxDatabase.failure(e, operatorSettings);
        }
    }

    /**
     * The relay's settings, resolved by Camel's properties component exactly as the relay resolves them (its
     * application.properties, then system properties, then environment variables, which win), without starting
     * anything: the CamelContext is only created, never started.
     */
    public static Function<String, Optional<String>> relaySettings() {
        return new Function<>() {
            private CamelContext context;

            @Override
            public synchronized Optional<String> apply(String key) {
                if (context == null) {
                    context = new DefaultCamelContext(false);
                    context.getPropertiesComponent().setLocation("classpath:application.properties;optional=true");
                }
                return context.getPropertiesComponent().resolveProperty(key);
            }
        };
    }
}
