package io.outboxrelay.settings;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The database is told by outbox.db.url's scheme; a MariaDB server older than 10.7 is refused in one line. */
class DatabaseTest {

    @Test
    void theUrlsSchemeSelectsTheDatabase() {
        assertEquals(Database.POSTGRESQL, Database.of("outbox.db.url", "jdbc:postgresql://db:5432/shop"));
        assertEquals(Database.MARIADB, Database.of("outbox.db.url", "jdbc:mariadb://db:3306/shop"));
        assertEquals("mariadb", Database.MARIADB.dialect());
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.6.21-MariaDB", "10.5.9-MariaDB-log", "5.5.5-10.3.39-MariaDB", "9.9.9", "unknown"})
    void aMariaDbOlderThan107IsBadConfiguration(String version) {
        InvalidSettingException e = assertThrows(InvalidSettingException.class,
                () -> Database.MARIADB.checkServerVersion("outbox.db.url", "jdbc:mariadb://db/shop", version));

        assertEquals("outbox.db.url", e.key());
        assertEquals("invalid setting outbox.db.url='jdbc:mariadb://db/shop': MariaDB " + version
                + " is too old: the outbox needs MariaDB 10.7+ (UUID type, SKIP LOCKED), tested on 10.11",
                e.getMessage());
        assertTrue(e.getMessage().lines().count() == 1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.7.0-MariaDB", "10.11.19-MariaDB-0+deb12u1", "11.4.2-MariaDB", "12.0.1"})
    void mariaDb107AndLaterAreAccepted(String version) {
        assertDoesNotThrow(() -> Database.MARIADB.checkServerVersion("outbox.db.url", "jdbc:mariadb://db/x", version));
    }

    @Test
    void postgresqlVersionsAreNotCheckedHere() {
        assertDoesNotThrow(() -> Database.POSTGRESQL.checkServerVersion("outbox.db.url", "jdbc:postgresql://db/x",
                "12.0"));
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "outbox.wake-up        | notify  | LISTEN/NOTIFY is PostgreSQL's",
    })
    void whatMariaDbDoesNotRunYetIsRefusedNamingTheKey(String key, String value, String expectation) {
        InvalidSettingException e = assertThrows(InvalidSettingException.class,
                () -> RelaySettingsTest.read(Map.of("outbox.db.url", "jdbc:mariadb://db/shop", key, value)));

        assertEquals(key, e.key());
        assertTrue(e.getMessage().contains(expectation), e.getMessage());
        assertEquals(Database.POSTGRESQL, RelaySettingsTest.read(Map.of(key, value)).database(),
                "the same setting is fine on PostgreSQL");
    }

    @Test
    void archiveModeRunsOnMariaDb() {
        RelaySettings s = RelaySettingsTest.read(Map.of("outbox.db.url", "jdbc:mariadb://db/shop",
                "outbox.retention.mode", "archive", "outbox.archive.retention", "P90D"));

        assertEquals(Database.MARIADB, s.database());
        assertTrue(s.archiveMode());
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "outbox.retention.mode    | move | one of delete, archive",
        "outbox.archive.retention | P3M  | ",
    })
    void aBadRetentionSettingOnMariaDbIsRefusedInOneLineNamingTheKey(String key, String value, String expectation) {
        Map<String, String> settings = new HashMap<>(Map.of("outbox.db.url", "jdbc:mariadb://db/shop",
                "outbox.retention.mode", "archive"));
        settings.put(key, value);
        InvalidSettingException e = assertThrows(InvalidSettingException.class,
                () -> RelaySettingsTest.read(settings));

        assertEquals(key, e.key());
        assertTrue(e.getMessage().startsWith("invalid setting " + key + "='" + value + "'"), e.getMessage());
        assertTrue(expectation == null || e.getMessage().contains(expectation), e.getMessage());
        assertEquals(1, e.getMessage().lines().count());
    }

    @Test
    void theOperatorCommandsRunOnTheDatabaseOfTheUrl() {
        OperatorSettings s = OperatorSettings.read(key -> java.util.Optional.ofNullable(key.equals("outbox.db.url")
                ? "jdbc:mariadb://db/shop?password=secret" : RelaySettingsTest.DEFAULTS.getProperty(key)));

        assertEquals(Database.MARIADB, s.database());
        assertEquals("jdbc:mariadb://db/shop", s.dbUrlForDisplay());
        assertEquals(Database.POSTGRESQL, OperatorSettings.read(
                key -> java.util.Optional.ofNullable(RelaySettingsTest.DEFAULTS.getProperty(key))).database());
    }
}
