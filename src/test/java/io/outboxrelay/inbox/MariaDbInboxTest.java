package io.outboxrelay.inbox;

import io.outboxrelay.settings.Database;
import org.junit.jupiter.api.Tag;

/**
 * {@link InboxTest} on MariaDB: the inbox table of db/inbox/mariadb (its unique key a SHA-256 of consumer and message
 * id), the handler's writes and the inbox row in one InnoDB transaction, the janitor's bounded DELETE.
 */
@Tag("services")
class MariaDbInboxTest extends InboxTest {

    @Override
    Database database() {
        return Database.MARIADB;
    }
}
