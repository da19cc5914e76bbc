package io.outboxrelay.support;

import io.outboxrelay.settings.Database;

/**
 * A database server of the test's own on a free port, which the test can stop and start while the machine's shared
 * server stays up.
 */
public interface ThrowawayServer extends AutoCloseable {

    /** A new server of the given kind, started. */
    static ThrowawayServer create(Database database) {
        return database == Database.MARIADB ? ThrowawayMariaDb.create() : ThrowawayPostgres.create();
    }

    /** JDBC server URL, ending in '/'. */
    String serverUrl();

    /** Starts it and returns once it accepts connections. */
    void start();

    /** A fast shutdown: connections are cut, as in a crash or failover. */
    void stop();

    /** Stops it when it runs and deletes its data. */
    @Override
    void close();
}
