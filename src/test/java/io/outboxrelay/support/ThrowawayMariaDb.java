package io.outboxrelay.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * A MariaDB server of the test's own (mariadb-install-db into a temporary directory, mariadbd as the mysql user on a
 * free port, with the machine's settings left out), so a test can stop and start it while the machine's shared server
 * stays up. Root logs in over TCP without a password, as on the shared server.
 */
public final class ThrowawayMariaDb extends ThrowawayServer {

    private final Path dir;
    private Process server;

    private ThrowawayMariaDb(Path dir, int port) {
        super("mariadb", port);
        this.dir = dir;
    }

    public static ThrowawayMariaDb create() {
        return started(() -> {
            ThrowawayMariaDb mariaDb = new ThrowawayMariaDb(directoryOwnedBy("mysql", "relay-mariadb"),
                    KafkaBroker.freePort());
            run("mariadb-install-db", "--no-defaults", "--datadir=" + mariaDb.dataDir(), "--user=mysql",
                    "--auth-root-authentication-method=normal", "--skip-test-db");
            return mariaDb;
        });
    }

    @Override
    public void start() {
        try {
            server = new ProcessBuilder("mariadbd", "--no-defaults", "--user=mysql", "--datadir=" + dataDir(),
                    "--port=" + port(), "--socket=" + dir.resolve("sock"), "--pid-file=" + dir.resolve("pid"),
                    "--bind-address=127.0.0.1", "--skip-name-resolve", "--character-set-server=utf8mb4",
                    "--collation-server=utf8mb4_general_ci")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("server.log").toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        await("the throwaway MariaDB on port " + port() + " accepting connections").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100)).until(() -> {
                    if (!server.isAlive()) {
                        throw new IllegalStateException("mariadbd exited: " + log());
                    }
                    return answers();
                });
    }

    /** SIGTERM: the server cuts its connections and shuts down; returns once it has exited (its port is free). */
    @Override
    public void stop() {
        if (server == null) {
            return;
        }
        server.destroy();
        try {
            if (!server.waitFor(60, TimeUnit.SECONDS)) {
                server.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        server = null;
    }

    @Override
    public void close() {
        stop();
        KafkaBroker.deleteRecursively(dir);
    }

    private Path dataDir() {
        return dir.resolve("data");
    }

    private boolean answers() {
        try (Connection c = DriverManager.getConnection(serverUrl(), "root", "")) {
            return c.isValid(5);
        } catch (SQLException e) {
            return false;
        }
    }

    private String log() {
        try {
            return Files.readString(dir.resolve("server.log"));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }
}
