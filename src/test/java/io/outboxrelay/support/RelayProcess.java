package io.outboxrelay.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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

    public static RelayProcess start(Map<String, String> environment, String... systemProperties) {
        try {
            Path output = Files.createTempFile("relay-process", ".log");
            List<String> command = new java.util.ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m"));
            command.addAll(List.of(systemProperties));
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.outboxrelay.OutboxRelay"));
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile());
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
        try {
            Files.deleteIfExists(output);
        } catch (IOException e) {
            // a temporary file
        }
    }
}
