package io.outboxrelay.observability;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** The files under deploy/observability and the Prometheus tools the tests run them with. */
final class ObservabilityKit {

    static final Path PROMETHEUS_DIR = Path.of("deploy/observability/prometheus");
    static final Path ALERT_RULES = PROMETHEUS_DIR.resolve("outbox-relay-alerts.yml");
    static final Path ALERT_TESTS = PROMETHEUS_DIR.resolve("outbox-relay-alerts.test.yml");
    static final Path PROMETHEUS_CONFIG = PROMETHEUS_DIR.resolve("prometheus.yml");
    static final Path DASHBOARD = Path.of("deploy/observability/grafana/outbox-relay-dashboard.json");

    private ObservabilityKit() {
    }

    /** An executable of that name on PATH, else in the given fallback locations. */
    static Optional<Path> executable(String name, String... fallbacks) {
        String path = System.getenv().getOrDefault("PATH", "");
        Stream<Path> onPath = Stream.of(path.split(File.pathSeparator)).filter(d -> !d.isEmpty())
                .map(d -> Path.of(d, name));
        return Stream.concat(onPath, Stream.of(fallbacks).map(Path::of))
                .filter(Files::isRegularFile)
                .filter(Files::isExecutable)
                .findFirst();
    }

    record Result(int exitCode, String output) {
    }

    /** Runs a command in a directory, stdout and stderr together, and waits at most a minute. */
    static Result run(Path directory, List<String> command) {
        Path output = null;
        try {
            output = Files.createTempFile("outbox-observability", ".out");
            Process process = new ProcessBuilder(command).directory(directory.toFile())
                    .redirectErrorStream(true).redirectOutput(output.toFile()).start();
            process.getOutputStream().close();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new IllegalStateException(String.join(" ", command) + " did not end within 60 s:\n"
                        + Files.readString(output, StandardCharsets.UTF_8));
            }
            return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            if (output != null) {
                output.toFile().delete();
            }
        }
    }

    static void deleteRecursively(Path root) {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // temporary files only
        }
    }
}
