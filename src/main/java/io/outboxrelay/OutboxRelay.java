package io.outboxrelay;

import io.outboxrelay.cli.OperatorCommands;
import io.outboxrelay.config.ComponentEnvironmentVariables;
import io.outboxrelay.settings.InvalidSettingException;
import io.outboxrelay.config.RelayConfiguration;
import io.outboxrelay.config.UserRoutes;
import org.apache.camel.main.Main;
import sun.misc.Signal;

/**
 * Runs the relay as a Camel Main application: application.properties, the YAML routes under routes/ and the beans of
 * {@link RelayConfiguration}. A bad setting ends the process with exit code 2 and one line naming the key. With a
 * command as first argument (status, failed, replay, help) it runs that operator command instead
 * ({@link OperatorCommands}).
 */
public final class OutboxRelay {

    static final int EXIT_BAD_SETTING = 2;
    static final int EXIT_FAILED = 1;

    private OutboxRelay() {
    }

    public static Main createMain() {
        Main main = new Main();
        main.addMainListener(new ComponentEnvironmentVariables());
        main.addMainListener(new RelayConfiguration());
        main.addMainListener(new UserRoutes());
        return main;
    }

    public static void main(String[] args) {
        if (OperatorCommands.isCommand(args)) {
            // status, failed, replay, help: the operator's commands, without starting Camel
            System.exit(OperatorCommands.run(args, System.out, System.err));
        }
        int exitCode = EXIT_FAILED;
        try {
            Main main = createMain();
            stopGracefullyOn(main, "TERM");
            stopGracefullyOn(main, "INT");
            exitCode = main.run(args);
        } catch (Exception e) {
            InvalidSettingException badSetting = findBadSetting(e);
            if (badSetting != null) {
                System.err.println("outbox-relay: " + badSetting.getMessage());
                exitCode = EXIT_BAD_SETTING;
            } else {
                System.err.println("outbox-relay: failed to start: " + e);
                for (Throwable cause = e.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
                    System.err.println("  caused by: " + cause);
                }
            }
        } catch (Error e) {
            System.err.println("outbox-relay: stopped by " + e);
        } finally {
            // always end the process: non-daemon threads (the HTTP server) would otherwise keep a failed relay alive
            System.exit(exitCode);
        }
    }

    /**
     * SIGTERM is how platforms stop the relay; the JVM's own handler would run Camel's graceful shutdown from a
     * shutdown hook and still exit 143. Handling the signal lets Camel stop in-flight work and the process exit 0.
     */
    private static void stopGracefullyOn(Main main, String signal) {
        Signal.handle(new Signal(signal), received -> main.completed());
    }

    private static InvalidSettingException findBadSetting(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof InvalidSettingException invalid) {
                return invalid;
            }
        }
        return null;
    }
}
