package io.outboxrelay.support;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A PostgreSQL server of the test's own (initdb into a temporary directory, run as the postgres user on a free port),
 * so a test can stop and start it while the machine's shared server stays up.
 */
public final class ThrowawayPostgres extends ThrowawayServer {

    private final Path dataDir;
    private final Path bin;

    private ThrowawayPostgres(Path dataDir, int port, Path bin) {
        super("postgresql", port);
        this.dataDir = dataDir;
        this.bin = bin;
    }

    public static ThrowawayPostgres create() {
        return started(() -> {
            Path bin;
            try (var versions = Files.list(Path.of("/usr/lib/postgresql"))) {
                bin = versions.sorted().reduce((a, b) -> b).orElseThrow().resolve("bin");
            }
            Path dir = directoryOwnedBy("postgres", "relay-pg");
            ThrowawayPostgres pg = new ThrowawayPostgres(dir.resolve("data"), KafkaBroker.freePort(), bin);
            pg.asPostgres(bin.resolve("initdb").toString(), "-D", pg.dataDir.toString(),
                    "-A", "trust", "-U", "postgres");
            return pg;
        });
    }

    @Override
    public void start() {
        asPostgres(bin.resolve("pg_ctl").toString(), "-D", dataDir.toString(), "-w", "-t", "60",
                "-l", dataDir.getParent().resolve("server.log").toString(),
                "-o", "-p " + port() + " -k " + dataDir.getParent() + " -c listen_addresses=127.0.0.1", "start");
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
}
