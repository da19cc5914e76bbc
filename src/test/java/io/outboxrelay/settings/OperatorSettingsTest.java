package io.outboxrelay.settings;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The operator commands' few settings: checked as the relay checks them, the rest not read at all. */
class OperatorSettingsTest {

    @Test
    void readsWhereTheOutboxIs() {
        OperatorSettings s = read(Map.of("outbox.db.url", "jdbc:postgresql://db:5432/shop", "outbox.db.user", "ops",
                "outbox.db.password", "pw", "outbox.table", "app.outbox", "outbox.failed-blocks-key", "true",
                "outbox.schemas-dir", "schemas"));

        assertEquals("jdbc:postgresql://db:5432/shop", s.dbUrl());
        assertEquals("ops", s.dbUser());
        assertEquals("pw", s.dbPassword());
        assertEquals("app.outbox", s.table().qualified());
        assertTrue(s.failedBlocksKey());
        assertEquals("schemas", s.schemasDir());
    }

    @Test
    void aMistakeInTheRelaysOtherSettingsDoesNotStopAnOperator() {
        OperatorSettings s = read(Map.of("outbox.endpoint", "nonsense", "outbox.batch-size", "-1",
                "outbox.lease", "soon"));

        assertEquals(RelaySettingsTest.DEFAULTS.getProperty("outbox.table"), s.table().qualified());
    }

    @Test
    void itsOwnSettingsAreCheckedWithTheRelaysMessages() {
        for (var bad : Map.of("outbox.db.url", "postgres://db", "outbox.table", "Outbox",
                "outbox.failed-blocks-key", "maybe", "outbox.db.user", " ").entrySet()) {
            InvalidSettingException operator = assertThrows(InvalidSettingException.class,
                    () -> read(Map.of(bad.getKey(), bad.getValue())));
            InvalidSettingException relay = assertThrows(InvalidSettingException.class,
                    () -> RelaySettingsTest.read(Map.of(bad.getKey(), bad.getValue())));

            assertEquals(bad.getKey(), operator.key());
            assertEquals(relay.getMessage(), operator.getMessage());
        }
    }

    @Test
    void theUrlShownDropsItsQueryWhichMayHoldAPassword() {
        OperatorSettings s = read(Map.of("outbox.db.url", "jdbc:postgresql://db/shop?user=ops&password=hunter2",
                "outbox.db.password", "other-secret"));

        assertEquals("jdbc:postgresql://db/shop", s.dbUrlForDisplay());
        assertFalse(s.toString().contains("hunter2"), s.toString());
        assertFalse(s.toString().contains("other-secret"), s.toString());
        assertTrue(s.toString().contains("jdbc:postgresql://db/shop"), s.toString());
    }

    @Test
    void aUrlWithoutQueryIsShownWhole() {
        assertEquals("jdbc:postgresql://db/shop",
                read(Map.of("outbox.db.url", "jdbc:postgresql://db/shop")).dbUrlForDisplay());
    }

    @Test
    void noPasswordIsAnEmptyPassword() {
        Map<String, String> overrides = new HashMap<>();
        overrides.put("outbox.db.password", null);

        assertEquals("", read(overrides).dbPassword());
    }

    private static OperatorSettings read(Map<String, String> overrides) {
        return OperatorSettings.read(key -> Optional.ofNullable(
                overrides.containsKey(key) ? overrides.get(key) : RelaySettingsTest.DEFAULTS.getProperty(key)));
    }
}
