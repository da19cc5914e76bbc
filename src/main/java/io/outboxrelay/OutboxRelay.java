package io.outboxrelay;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.outboxrelay.cli.OperatorCommands;
import io.outboxrelay.config.ComponentEnvironmentVariables;
import io.outboxrelay.settings.InvalidSettingException;
import io.outboxrelay.config.RelayMainListener;
import io.outboxrelay.config.UserRoutes;
import org.apache.camel.main.Main;
import org.apache.camel.util.ObjectHelper;

/**
 * Runs the relay as a Camel Main application: application.properties, the YAML routes under routes/ and the beans of
 * {@link io.outboxrelay.config.RelayConfiguration}. A bad setting ends the process with exit code 2 and one line
 * naming the key. With a command as first argument (status, failed, replay, validate, completion, help) it runs
 * that operator command instead ({@link OperatorCommands}).
 */
public final class OutboxRelay {

    static final int EXIT_BAD_SETTING = 2;
    static final int EXIT_FAILED = 1;

    private OutboxRelay() {
    }

    public static Main createMain() {
        Main main = new Main();
        main.addMainListener(new ComponentEnvironmentVariables());
        main.addMainListener(new RelayMainListener());
        main.addMainListener(new UserRoutes());
        return main;
    }

    public static void main(String[] args) {
        if (OperatorCommands.isCommand(args)) {
            // status, failed, replay, validate, completion, help: the operator's commands, without starting Camel
            System.exit(OperatorCommands.run(args, System.out, System.err));
        }
        int exitCode = EXIT_FAILED;
        CompletableFuture<Integer> ended = new CompletableFuture<>();
        try {
            Main main = createMain();
            stopGracefullyOnShutdown(main, ended);
            exitCode = main.run(args);
        } catch (Exception e) {
            InvalidSettingException badSetting = ObjectHelper.getException(InvalidSettingException.class, e);
            if (badSetting != null) {
                System.err.println("outbox-relay: " + badSetting.getMessage());
                exitCode = EXIT_BAD_SETTING;
            } else {
                System.err.println("outbox-relay: failed to start: " + e);
                for (Throwable cause = e.getCause(); cause != null && cause != cause.getCause();
                        cause = cause.getCause()) {
                    System.err.println("  caused by: " + cause);
                }
            }
        } catch (Error e) {
            System.err.println("outbox-relay: stopped by " + e);
        } finally {
            ended.complete(exitCode);
            // always end the process: non-daemon threads (the HTTP server) would otherwise keep a failed relay alive
            System.exit(exitCode);
        }
    }

    /**
     * SIGTERM (and SIGINT) is how platforms stop the relay. The JVM answers it by running its shutdown hooks and then
     * exits with 128 + the signal's number (143), even when the relay stopped cleanly. This hook asks Camel Main to
     * complete (graceful shutdown: in-flight claims finish and are marked, or are given back), waits until
     * {@code main.run} has returned, and then ends the process with the relay's own exit code (0 after a clean stop),
     * as the contract asks. When the relay ends by itself, the code is already known and the hook ends at once.
     */
    private static void stopGracefullyOnShutdown(Main main, CompletableFuture<Integer> ended) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            main.completed();
            int exitCode;
            try {
                // Camel's shutdown-timeout bounds the graceful stop; a little more for the HTTP server and the pool
                exitCode = ended.get(main.getCamelContext() == null ? 5
                        : main.getCamelContext().getShutdownStrategy().getTimeout() + 10, TimeUnit.SECONDS);
            } catch (InterruptedException | ExecutionException | TimeoutException e) {
                exitCode = EXIT_FAILED;
            }
            Runtime.getRuntime().halt(exitCode);
        }, "outbox-relay-shutdown"));
    }
}
