package io.outboxrelay.settings;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The table name is spliced into SQL text: only plain identifiers pass. */
class TableNameTest {

    @Test
    void aPlainNameHasNoSchema() {
        TableName name = TableName.parse("outbox.table", "outbox");

        assertNull(name.schema());
        assertEquals("outbox", name.table());
        assertEquals("outbox", name.qualified());
    }

    @Test
    void aQualifiedNameKeepsItsSchema() {
        TableName name = TableName.parse("outbox.table", "billing_2.outbox_events");

        assertEquals("billing_2", name.schema());
        assertEquals("outbox_events", name.table());
        assertEquals("billing_2.outbox_events", name.qualified());
    }

    @Test
    void eachPartMayHaveSixtyThreeCharacters() {
        String longest = "t" + "x".repeat(62);

        assertEquals(longest + "." + longest, TableName.parse("k", longest + "." + longest).qualified());
        assertThrows(InvalidSettingException.class, () -> TableName.parse("k", longest + "x"));
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {"", "Outbox", "out-box", "1outbox", "outbox;drop table users", "outbox --",
            "\"outbox\"", "outbox events", "a.b.c", ".outbox", "outbox.", "public..outbox", "outbox/*x*/",
            "schema.Outbox", "öutbox"})
    void anythingButLowerCaseIdentifiersIsRefusedNamingTheKey(String value) {
        InvalidSettingException e = assertThrows(InvalidSettingException.class,
                () -> TableName.parse("outbox.table", value));

        assertEquals("outbox.table", e.key());
        assertTrue(e.getMessage().contains("[schema.]table"), e.getMessage());
    }
}
