package io.outboxrelay.config;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The message headers map: case-insensitive names, with or without a kept lower-case form. No database. */
class HashedHeadersMapFactoryTest {

    private final HashedHeadersMapFactory factory = new HashedHeadersMapFactory();

    @Test
    void namesAreCaseInsensitiveAndKeepTheirLastSpelling() {
        Map<String, Object> headers = factory.newMap();
        headers.put("kafka.OVERRIDE_TOPIC", "orders");
        headers.put("ce_id", "1");

        assertEquals("orders", headers.get("KAFKA.override_topic"));
        assertTrue(headers.containsKey("CE_ID"));
        headers.put("Ce_Id", "2");
        assertEquals(List.of("kafka.OVERRIDE_TOPIC", "Ce_Id"), List.copyOf(headers.keySet()));
        assertEquals("2", headers.get("ce_id"));
        assertNull(headers.get("nothing"));
        assertEquals("orders", headers.remove("KAFKA.OVERRIDE_TOPIC"));
        assertEquals(List.of("Ce_Id"), List.copyOf(headers.keySet()));
    }

    @Test
    void aCopyIsAnotherCaseInsensitiveMapWithTheSameEntries() {
        Map<String, Object> headers = factory.newMap();
        headers.put("Content-Type", "application/json");

        Map<String, Object> copy = factory.newMap(headers);
        copy.put("ce_type", "OrderPlaced");

        assertTrue(factory.isInstanceOf(copy));
        assertEquals("application/json", copy.get("content-type"));
        assertFalse(headers.containsKey("ce_type"));
    }

    @Test
    void namesBeyondTheKeptOnesAreStillFoundWhateverTheirCase() {
        Map<String, Object> headers = factory.newMap();
        int names = HashedHeadersMapFactory.CACHED_NAMES + 500;
        for (int i = 0; i < names; i++) {
            headers.put("X-Event-Header-" + i, i);
        }

        assertTrue(HashedHeadersMapFactory.cachedNames() <= HashedHeadersMapFactory.CACHED_NAMES);
        for (int i = 0; i < names; i++) {
            assertEquals(i, headers.get("x-event-HEADER-" + i));
        }
        assertEquals(names, headers.size());
    }
}
