package io.outboxrelay.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * The relay as its own operating-system process, started like the jar (same main class, the test classpath), with
 * environment variables for settings; its output is kept in a file for assertions.
 */
public final class RelayProcess implements AutoCloseable {

    private final Process process;
    private final Path output;

    private RelayProcess(Process process, Path output) {
        this.process = process;
        this.output = output;
    }

    /** From the test classpath (unit-test phase, before the jar exists). */
    public static RelayProcess start(Map<String, String> environment, String... systemProperties) {
        return launch(List.of("-cp", System.getProperty("java.class.path"), "io.outboxrelay.OutboxRelay"),
                environment, systemProperties);
    }

    /** Another main class of the test classpath as its own process (the benchmarks' plain relay). */
    public static RelayProcess startMain(String mainClass, List<String> args, Map<String, String> environment) {
        List<String> command = new ArrayList<>(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(args);
        return launch(command, environment);
    }

    /** {@code java -jar target/outbox-relay.jar}, exactly as operators run it (integration-test phase). */
    public static RelayProcess startJar(Map<String, String> environment, String... systemProperties) {
        String jar = System.getProperty("relay.jar", "target/outbox-relay.jar");
        if (!Files.exists(Path.of(jar))) {
            throw new IllegalStateException(jar + " is missing: integration tests run after mvn package");
        }
        return launch(List.of("-jar", jar), environment, systemProperties);
    }

    private static RelayProcess launch(List<String> mainArgs, Map<String, String> environment,
            String... systemProperties) {
        try {
            // kept after the test for diagnosis
            Path logs = Files.createDirectories(Path.of("target", "relay-logs"));
            Path output = Files.createTempFile(logs, "relay-", ".log");
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m"));
            command.addAll(List.of(systemProperties));
            command.addAll(mainArgs);
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile());
            // a test relay traces only where its test says so, whatever this machine's OpenTelemetry settings
            builder.environment().keySet().removeIf(name -> name.startsWith("OTEL_"));
            builder.environment().putAll(environment);
            return new RelayProcess(builder.start(), output);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int waitForExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("relay still running after " + timeout + ":\n" + output());
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public void awaitOutput(String text, Duration timeout) {
        await("relay output containing '" + text + "'").atMost(timeout).pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    if (!process.isAlive() && !output().contains(text)) {
                        throw new AssertionError("relay exited:\n" + output());
                    }
                    return output().contains(text);
                });
    }

    /** SIGTERM, as a platform stops it. */
    public void terminate() {
        process.destroy();
    }

    /** kill -9: no shutdown of any kind. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    public Path logFile() {
        return output;
    }

    public String output() {
        try {
            return Files.readString(output);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
