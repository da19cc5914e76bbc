package io.outboxrelay.cli;

import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The operator commands' test classes: each gets a database of its own on the real PostgreSQL with a migrated outbox
 * table, dropped after the class. A subclass adds its rows in a {@code @BeforeAll} of its own (run after this one).
 */
@Tag("services")
abstract class OutboxTableTestSupport {

    static TestDatabase db;
    static CliFixture outbox;

    @BeforeAll
    static void createOutboxTable() {
        db = TestDatabase.create();
        outbox = new CliFixture(db, "outbox").migrate();
    }

    @AfterAll
    static void dropDatabase() {
        db.close();
    }
}
