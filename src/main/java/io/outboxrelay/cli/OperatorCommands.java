package io.outboxrelay.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

import io.outboxrelay.settings.InvalidSettingException;
import io.outboxrelay.settings.OperatorSettings;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The operator's command line, in the relay's jar: {@code java -jar outbox-relay.jar
 * status|failed|replay|validate|help ...}. A command reads the relay's own settings (application.properties,
 * environment variables, system properties; see {@link OperatorSettings}), opens one JDBC connection, does its work
 * and returns an exit code. It starts no Camel route and no HTTP server, so it can run beside the relay in its pod,
 * with the same environment.
 *
 * <p>This class is the entry point and picocli's top command; picocli parses and checks the arguments and writes the
 * usage from the commands' annotations. A usage, setting or database error is one line on stderr, prefixed
 * "outbox-relay: ".
 */
// -h/--help and -V/--version on this command and on every subcommand (scope INHERIT)
@Command(name = "java -jar outbox-relay.jar", synopsisSubcommandLabel = "COMMAND", scope = ScopeType.INHERIT,
        mixinStandardHelpOptions = true, versionProvider = OperatorCommands.JarVersion.class,
        subcommands = {StatusCommand.class, FailedCommand.class, ReplayCommand.class, ValidateCommand.class,
            HelpCommand.class, CompletionCommand.class},
        description = {"Looks at or acts on the relay's outbox table, then exits. Without arguments the jar runs the "
                + "relay.", "",
            "The commands use the relay's settings (application.properties, OUTBOX_DB_URL, OUTBOX_DB_USER, "
                + "OUTBOX_DB_PASSWORD, OUTBOX_TABLE, OUTBOX_FAILED_BLOCKS_KEY, OUTBOX_SCHEMAS_DIR, -Doutbox....) and "
                + "start no routes or HTTP server: run them where the relay runs, with its environment."},
        optionListHeading = "%nOptions:%n", commandListHeading = "%nCommands:%n",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:done", "1:database unreachable or database error", "2:bad usage or bad setting",
            "3:replay refused (nothing changed)", "4:validate: some PENDING rows would fail their schema"})
public final class OperatorCommands implements Runnable {

    public static final int EXIT_OK = 0;
    public static final int EXIT_DATABASE = 1;
    public static final int EXIT_BAD_USAGE = 2;
    public static final int EXIT_REPLAY_REFUSED = 3;
    public static final int EXIT_VALIDATION_FAILED = 4;

    private static final String PREFIX = "outbox-relay: ";
    private static final Set<String> HELP_OR_VERSION = Set.of("help", "--help", "-h", "--version", "-V");
    private static final int USAGE_WIDTH = 100;


    @Spec
    CommandSpec spec;

    /** The relay's settings, read by a command once its options are checked (see {@link OutboxCommand}). */
    final Function<String, Optional<String>> settings;

    private OperatorCommands(Function<String, Optional<String>> settings) {
        this.settings = settings;
    }

    /** No command: the usage. */
    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /**
     * Whether the arguments ask for a command rather than the relay: a first argument that is a word (a command, or a
     * mistyped one: that must not start a relay) or a request for help. No arguments, or Camel Main's own options
     * ({@code -duration 60}, ...), run the relay as before.
     */
    public static boolean isCommand(String[] args) {
        return args.length > 0 && (HELP_OR_VERSION.contains(args[0]) || !args[0].startsWith("-"));
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
            return commandLine(settings).setOut(writer(out)).setErr(writer(err)).execute(args);
        } finally {
            out.flush();
            err.flush();
        }
    }

    static CommandLine commandLine(Function<String, Optional<String>> settings) {
        return new CommandLine(new OperatorCommands(settings))
                .registerConverter(EventKey.class, EventKey::parse)
                .registerConverter(UUID.class, ReplayCommand::id)
                // an argument starting with @ is not a file of arguments
                .setExpandAtFiles(false)
                .setUsageHelpWidth(USAGE_WIDTH)
                .setParameterExceptionHandler(OperatorCommands::badUsage)
                .setExecutionExceptionHandler(OperatorCommands::failed)
                .setExitCodeExceptionMapper(OperatorCommands::exitCode);
    }

    /** Bad usage: one line naming the command and what is wrong, and exit 2; the usage is one 'help' away. */
    private static int badUsage(ParameterException e, String[] args) {
        CommandLine commandLine = e.getCommandLine();
        boolean top = commandLine.getParent() == null;
        String message = top && e instanceof UnmatchedArgumentException && !args[0].startsWith("-")
                ? "unknown command '" + args[0] + "' (no command runs the relay)"
                : e.getMessage();
        if (e instanceof UnmatchedArgumentException unmatched && !unmatched.getSuggestions().isEmpty()) {
            message += "; did you mean " + String.join(" or ", unmatched.getSuggestions()) + "?";
        }
        commandLine.getErr().println(PREFIX + (top ? "" : commandLine.getCommandName() + ": ") + message
                + " ('" + (top ? "" : commandLine.getCommandName() + " ") + "--help' shows the usage)");
        return EXIT_BAD_USAGE;
    }

    /** A command that ended with an exception: one line on stderr, the exit code its kind of failure has. */
    private static int failed(Exception e, CommandLine commandLine, ParseResult parsed) {
        commandLine.getErr().println(PREFIX + (e instanceof DatabaseException || e instanceof InvalidSettingException
                ? e.getMessage()
                : commandLine.getCommandName() + " failed: " + e));
        return commandLine.getExitCodeExceptionMapper().getExitCode(e);
    }

    private static int exitCode(Throwable e) {
        return e instanceof InvalidSettingException ? EXIT_BAD_USAGE : EXIT_DATABASE;
    }

    /** Characters for the caller's stream, which encodes them in its own charset (Java 17 cannot tell which). */
    private static PrintWriter writer(PrintStream stream) {
        return new PrintWriter(new Writer() {
            @Override
            public void write(char[] characters, int offset, int length) {
                stream.print(String.valueOf(characters, offset, length));
            }

            @Override
            public void flush() {
                stream.flush();
            }

            @Override
            public void close() {
                flush();
            }
        }, true);
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

    /** {@code --version}: the jar's Implementation-Version (its manifest, written by the build). */
    static final class JarVersion implements IVersionProvider {

        @Override
        public String[] getVersion() {
            String version = OperatorCommands.class.getPackage().getImplementationVersion();
            return new String[] {"outbox-relay " + (version == null ? "(not built as a jar)" : version)};
        }
    }
}
