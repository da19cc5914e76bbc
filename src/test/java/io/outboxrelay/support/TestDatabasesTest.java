package io.outboxrelay.support;

import java.util.List;

import io.outboxrelay.settings.Database;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** -Dtest.database: unset, the cases as the test lists them; set, every case on the databases it names. */
class TestDatabasesTest {

    private static final Arguments[] ROLLING = {Arguments.of(Database.POSTGRESQL, "kafka"),
        Arguments.of(Database.POSTGRESQL, "jms"), Arguments.of(Database.MARIADB, "kafka")};

    @Test
    void unsetRunsTheCasesAsListed() {
        assertEquals(List.of(List.of(Database.POSTGRESQL, "kafka"), List.of(Database.POSTGRESQL, "jms"),
                List.of(Database.MARIADB, "kafka")), cases(""));
    }

    @Test
    void aDatabaseRunsEveryCaseOnItOnce() {
        assertEquals(List.of(List.of(Database.MARIADB, "kafka"), List.of(Database.MARIADB, "jms")), cases("mariadb"));
        assertEquals(List.of(List.of(Database.POSTGRESQL, "kafka"), List.of(Database.MARIADB, "kafka"),
                List.of(Database.POSTGRESQL, "jms"), List.of(Database.MARIADB, "jms")), cases("POSTGRESQL, MARIADB"));
    }

    @Test
    void anUnknownDatabaseIsOneLineNamingTheProperty() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> cases("ORACLE"));
        assertEquals("-Dtest.database: expected POSTGRESQL, MARIADB or both comma-separated, got ORACLE",
                e.getMessage());
    }

    private static List<List<Object>> cases(String setting) {
        return TestDatabases.cases(setting, ROLLING).map(a -> List.of(a.get())).toList();
    }
}
