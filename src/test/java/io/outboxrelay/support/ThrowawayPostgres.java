package io.outboxrelay.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL server of the test's own (initdb into a temporary directory, run as the postgres user on a free port),
 * so a test can stop and start it while the machine's shared server stays up.
 */
public final class ThrowawayPostgres implements ThrowawayServer {

    private final Path dataDir;
    private final int port;
    private final Path bin;

    private ThrowawayPostgres(Path dataDir, int port, Path bin) {
        this.dataDir = dataDir;
        this.port = port;
        this.bin = bin;
    }

    public static ThrowawayPostgres create() {
        try {
            Path bin;
            try (var versions = Files.list(Path.of("/usr/lib/postgresql"))) {
                bin = versions.sorted().reduce((a, b) -> b).orElseThrow().resolve("bin");
            }
            Path dir = Files.createTempDirectory("relay-pg");
            run("chown", "postgres", dir.toString());
            ThrowawayPostgres pg = new ThrowawayPostgres(dir.resolve("data"), KafkaBroker.freePort(), bin);
            pg.asPostgres(bin.resolve("initdb").toString(), "-D", pg.dataDir.toString(),
                    "-A", "trust", "-U", "postgres");
            pg.start();
            return pg;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String serverUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/";
    }

    @Override
    public void start() {
        asPostgres(bin.resolve("pg_ctl").toString(), "-D", dataDir.toString(), "-w", "-t", "60",
                "-l", dataDir.getParent().resolve("server.log").toString(),
                "-o", "-p " + port + " -k " + dataDir.getParent() + " -c listen_addresses=127.0.0.1", "start");
    }

    @Override
    public void stop() {
        asPostgres(bin.resolve("pg_ctl").toString(), "-D", dataDir.toString(), "-w", "-m", "fast", "stop");
    }

    @Override
    public void close() {
        try {
            stop();
        } catch (RuntimeException e) {
            // already stopped
        }
        KafkaBroker.deleteRecursively(dataDir.getParent());
    }

    private void asPostgres(String... command) {
        List<String> full = new ArrayList<>(List.of("runuser", "-u", "postgres", "--"));
        full.addAll(List.of(command));
        run(full.toArray(new String[0]));
    }

    private static void run(String... command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes());
            if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
