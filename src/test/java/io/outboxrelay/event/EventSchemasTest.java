package io.outboxrelay.event;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.outboxrelay.event.EventSchemas.EventSchema;
import io.outboxrelay.settings.InvalidSettingException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * outbox.schemas-dir: one parsed schema per aggregate and event type, its draft from $schema (2020-12 by default),
 * its $id, the failing JSON pointers of a payload; a file that is not a valid schema is a bad setting.
 */
class EventSchemasTest {

    static final String ORDER_PLACED = """
            {
              "$id": "https://example.com/schemas/order/OrderPlaced.json",
              "type": "object",
              "required": ["id", "total"],
              "properties": {
                "id": {"type": "integer"},
                "total": {"type": "number"},
                "lines": {"type": "array", "items": {"type": "object", "properties": \
            {"qty": {"type": "integer", "minimum": 1}}}}
              }
            }""";

    @TempDir
    Path dir;

    @Test
    void noDirectoryChecksNothing() {
        EventSchemas none = EventSchemas.load("");

        assertSame(EventSchemas.NONE, none);
        assertNull(none.find("order", "OrderPlaced"));
        assertEquals(0, none.size());
    }

    @Test
    void aSchemaPerAggregateAndEventTypeWithItsId() throws IOException {
        write("order/OrderPlaced.schema.json", ORDER_PLACED);
        write("order/OrderPaid.schema.json", "{\"type\": \"object\"}");
        write("order/README.md", "not a schema: ignored");

        EventSchemas schemas = EventSchemas.load(dir.toString());

        assertEquals(2, schemas.size());
        EventSchema placed = schemas.find("order", "OrderPlaced");
        assertEquals("order/OrderPlaced.schema.json", placed.file());
        assertEquals(dir.resolve("order/OrderPlaced.schema.json").toString(), placed.path());
        assertEquals("https://example.com/schemas/order/OrderPlaced.json", placed.id());
        assertNull(schemas.find("order", "OrderPaid").id(), "no $id: no ce_dataschema");
        assertNull(schemas.find("order", "OrderShipped"), "an event type without a file is not checked");
        assertNull(schemas.find("customer", "OrderPlaced"), "the aggregate type is part of the name");
        assertEquals(List.of(), placed.check("{\"id\": 1, \"total\": 12.5, \"lines\": [{\"qty\": 2}]}"));
    }

    @Test
    void aPayloadsViolationsNameTheFailingJsonPointers() throws IOException {
        write("order/OrderPlaced.schema.json", ORDER_PLACED);
        EventSchema placed = EventSchemas.load(dir.toString()).find("order", "OrderPlaced");

        List<Violation> violations = placed.check("{\"total\": \"12.50\", \"lines\": [{\"qty\": 1}, {\"qty\": 0}]}");

        assertEquals(List.of("", "/total", "/lines/1/qty"), violations.stream().map(Violation::pointer).sorted(
                (a, b) -> a.length() - b.length()).toList(), violations.toString());
        String told = placed.describe(violations);
        assertTrue(told.startsWith("payload rejected by schema " + placed.path() + ": "), told);
        assertTrue(told.contains("(root): required property 'id' not found"), told);
        assertTrue(told.contains("/total: string found, number expected"), told);
        assertTrue(told.contains("/lines/1/qty: must have a minimum value of 1"), told);
    }

    @Test
    void theDraftIsTheOneSchemaNamesAnd202012WhenItNamesNone() throws IOException {
        // prefixItems is a 2020-12 keyword: checked by default, an unknown keyword (ignored) in draft-07
        write("order/Default.schema.json", "{\"type\": \"array\", \"prefixItems\": [{\"type\": \"string\"}]}");
        write("order/Seven.schema.json", "{\"$schema\": \"http://json-schema.org/draft-07/schema#\", "
                + "\"type\": \"array\", \"prefixItems\": [{\"type\": \"string\"}]}");
        // an array of items is a draft-07 tuple; 2020-12 would refuse it as a schema
        write("order/Tuple.schema.json", "{\"$schema\": \"http://json-schema.org/draft-07/schema\", "
                + "\"$id\": \"urn:tuple\", \"items\": [{\"type\": \"string\"}], \"additionalItems\": false}");
        write("order/Four.schema.json", "{\"$schema\": \"http://json-schema.org/draft-04/schema#\", "
                + "\"id\": \"urn:four\", \"type\": \"object\"}");

        EventSchemas schemas = EventSchemas.load(dir.toString());

        assertEquals("/0", schemas.find("order", "Default").check("[1]").get(0).pointer());
        assertEquals(List.of(), schemas.find("order", "Seven").check("[1]"));
        assertEquals(1, schemas.find("order", "Tuple").check("[\"a\", \"b\"]").size(), "no additional items");
        assertEquals("urn:tuple", schemas.find("order", "Tuple").id());
        assertEquals("urn:four", schemas.find("order", "Four").id(), "draft-04 names its id without $");
    }

    @Test
    void schemasAreParsedOnceAtLoadNeverPerEvent() throws IOException {
        write("order/OrderPlaced.schema.json", ORDER_PLACED);
        EventSchemas schemas = EventSchemas.load(dir.toString());
        EventSchema placed = schemas.find("order", "OrderPlaced");

        // the file is gone and would now be invalid: the loaded schema is what checks events
        Files.writeString(dir.resolve("order/OrderPlaced.schema.json"), "{ broken");
        for (int i = 0; i < 3; i++) {
            assertSame(placed, schemas.find("order", "OrderPlaced"));
            assertEquals(List.of(), placed.check("{\"id\": " + i + ", \"total\": 1}"));
        }
        assertSame(placed.schema(), schemas.find("order", "OrderPlaced").schema());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "{ \"type\": \"object\",                    | does not parse",
        "{\"type\": 5}                              | is not a valid schema: not a valid https://json-schema.org/draft/2020-12/schema schema: /type",
        "{\"required\": \"id\"}                     | is not a valid schema: not a valid https://json-schema.org/draft/2020-12/schema schema: /required",
        "[1, 2]                                     | is not a valid schema: a schema is an object or a boolean",
        "{\"$schema\": \"https://example.com/mine\"} | is not a valid schema: $schema \"https://example.com/mine\" names no draft",
        "{\"$ref\": \"#/$defs/missing\"}            | is not a valid schema:",
        "{\"$schema\": \"http://json-schema.org/draft-07/schema#\", \"minimum\": \"1\"} | not a valid http://json-schema.org/draft-07/schema# schema: /minimum",
    })
    void aFileThatIsNotAValidSchemaIsABadSettingNamingTheFile(String content, String expected) throws IOException {
        write("order/OrderPlaced.schema.json", "{}");
        Path bad = write("order/Broken.schema.json", content);

        InvalidSettingException e = assertThrows(InvalidSettingException.class,
                () -> EventSchemas.load(dir.toString()));

        assertEquals("outbox.schemas-dir", e.key());
        assertTrue(e.getMessage().startsWith("invalid setting outbox.schemas-dir='" + dir + "': schema file " + bad
                + " "), e.getMessage());
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void aMissingDirectoryOrAMisplacedFileIsABadSetting() throws IOException {
        InvalidSettingException missing = assertThrows(InvalidSettingException.class,
                () -> EventSchemas.load(dir.resolve("nowhere").toString()));
        assertTrue(missing.getMessage().endsWith("nowhere': not a directory"), missing.getMessage());

        Path misplaced = write("OrderPlaced.schema.json", "{}");
        InvalidSettingException e = assertThrows(InvalidSettingException.class,
                () -> EventSchemas.load(dir.toString()));
        assertTrue(e.getMessage().contains("schema file " + misplaced + " is not where a schema belongs: "
                + "<aggregate_type>/<event_type>.schema.json"), e.getMessage());
    }

    private Path write(String relative, String content) throws IOException {
        Path file = dir.resolve(relative);
        Files.createDirectories(file.getParent());
        return Files.writeString(file, content);
    }
}
