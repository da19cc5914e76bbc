package io.outboxrelay.cli;

import io.outboxrelay.settings.Database;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The operator commands' test classes, run on each database: each gets a database of its own on the real PostgreSQL
 * and then on the real MariaDB, with a migrated outbox table, dropped after the class's tests ran on it. A subclass
 * adds its rows in a {@code @BeforeParameterizedClassInvocation} of its own (run after this one's).
 */
@Tag("services")
@ParameterizedClass(name = "{0}")
@EnumSource(Database.class)
abstract class OutboxTableTestSupport {

    static TestDatabase db;
    static CliFixture outbox;

    /** The database of this run of the class (also given to its lifecycle methods). */
    @Parameter
    Database database;

    @BeforeParameterizedClassInvocation
    static void createOutboxTable(Database database) {
        db = TestDatabase.create(database);
        outbox = new CliFixture(db, "outbox").migrate();
    }

    @AfterParameterizedClassInvocation
    static void dropDatabase() {
        db.close();
    }
}
