package io.outboxrelay.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import io.outboxrelay.settings.Database;

/**
 * A database server of the test's own on a free port, which the test can stop and start while the machine's shared
 * server stays up. The steps both kinds take (a directory their user owns, their tools run, the first start, the URL)
 * are here; each subclass keeps its own tools and how it starts and stops.
 */
public abstract class ThrowawayServer implements AutoCloseable {

    /** Makes a new server with its data directory initialized, not yet started. */
    interface Initializer<S extends ThrowawayServer> {
        S initialized() throws IOException;
    }

    private final String scheme;
    private final int port;

    /** @param scheme the JDBC URL's database part, e.g. mariadb */
    ThrowawayServer(String scheme, int port) {
        this.scheme = scheme;
        this.port = port;
    }

    /** A new server of the given kind, started. */
    public static ThrowawayServer create(Database database) {
        return database == Database.MARIADB ? ThrowawayMariaDb.create() : ThrowawayPostgres.create();
    }

    /** JDBC server URL, ending in '/'. */
    public String serverUrl() {
        return "jdbc:" + scheme + "://127.0.0.1:" + port + "/";
    }

    /** Starts it and returns once it accepts connections. */
    public abstract void start();

    /** A fast shutdown: connections are cut, as in a crash or failover. */
    public abstract void stop();

    /** Stops it when it runs and deletes its data. */
    @Override
    public abstract void close();

    int port() {
        return port;
    }

    /** The server the initializer makes, started. */
    static <S extends ThrowawayServer> S started(Initializer<S> initializer) {
        S server;
        try {
            server = initializer.initialized();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.start();
        return server;
    }

    /** A new temporary directory owned by the given user: the server runs as that user, not as the test's. */
    static Path directoryOwnedBy(String user, String prefix) throws IOException {
        Path dir = Files.createTempDirectory(prefix);
        run("chown", user, dir.toString());
        return dir;
    }

    /** Runs one of the server's tools, failing with its output when it fails or takes over two minutes. */
    static void run(String... command) {
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
