package io.outboxrelay.claim;

import io.outboxrelay.settings.Database;
import org.junit.jupiter.api.Tag;

/**
 * {@link PromptAfterCommitTest} on MariaDB: late commits published promptly while a stranger's transaction, which
 * has written a row of another table, stays open (InnoDB lists it among the writers the watch waits for; the late
 * writers' ends are what settle).
 */
@Tag("services")
class MariaDbPromptAfterCommitTest extends PromptAfterCommitTest {

    @Override
    Database database() {
        return Database.MARIADB;
    }
}
