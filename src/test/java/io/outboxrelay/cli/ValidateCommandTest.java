package io.outboxrelay.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code validate}: every PENDING row against the schemas of outbox.schemas-dir as they are now; the rows that would
 * fail, with their schema file and failing pointers; exit 4 when some would, 0 when none; nothing changes.
 */
class ValidateCommandTest extends OutboxTableTestSupport {

    private static final String SCHEMA = """
            {"type": "object", "required": ["id", "total"],
             "properties": {"id": {"type": "integer"}, "total": {"type": "number"}}}""";

    @TempDir
    static Path schemas;

    private static UUID wrongTotal;
    private static UUID wrongId;

    @BeforeParameterizedClassInvocation
    static void rowsAndSchemas() throws IOException {
        write(schemas, "order/OrderPlaced.schema.json", SCHEMA);
        insert("o-1", "OrderPlaced", "{\"id\": 1, \"total\": 2}", "PENDING");
        wrongTotal = insert("o-2", "OrderPlaced", "{\"total\": \"12.50\"}", "PENDING");
        insert("o-3", "OrderShipped", "[\"no schema\"]", "PENDING");
        wrongId = insert("o-4", "OrderPlaced", "{\"id\": \"four\", \"total\": 4}", "PENDING");
        // only PENDING rows are checked
        insert("o-5", "OrderPlaced", "{}", "FAILED");
        insert("o-6", "OrderPlaced", "{}", "PUBLISHED");
    }

    @Test
    void listsThePendingRowsThatWouldFailAndChangesNothing() {
        List<Map<String, Object>> before = outbox.snapshot();

        CliFixture.Result result = outbox.set("outbox.schemas-dir", schemas.toString()).run("validate");

        assertEquals(4, result.exit(), result.toString());
        assertEquals("", result.err());
        List<String> lines = result.out().lines().toList();
        assertEquals("Checked 4 PENDING rows of outbox against 1 schema in " + schemas
                + " (1 without a schema): 2 would fail:", lines.get(0));
        assertTrue(lines.get(1).matches("ID {36}KEY +EVENT_TYPE +SCHEMA +ERRORS"), lines.get(1));
        assertEquals(4, lines.size(), result.out());
        assertTrue(lines.get(2).startsWith(wrongTotal + "  order/o-2  OrderPlaced  order/OrderPlaced.schema.json  "),
                lines.get(2));
        assertTrue(lines.get(2).contains("(root): required property 'id' not found"), lines.get(2));
        assertTrue(lines.get(2).contains("/total: string found, number expected"), lines.get(2));
        assertTrue(lines.get(3).startsWith(wrongId + "  order/o-4  "), lines.get(3));
        assertTrue(lines.get(3).endsWith("/id: string found, integer expected"), lines.get(3));
        assertEquals(before, outbox.snapshot(), "nothing published, no row changed");
    }

    @Test
    void jsonHasEveryFailingPointer() {
        CliFixture.Result result = outbox.set("outbox.schemas-dir", schemas.toString()).run("validate", "--json");

        assertEquals(4, result.exit(), result.toString());
        JsonNode document = result.json();
        assertEquals("outbox", document.get("table").asText());
        assertEquals(schemas.toString(), document.get("schemas_dir").asText());
        assertEquals(1, document.get("schemas").asInt());
        assertEquals(4, document.get("checked").asLong());
        assertEquals(1, document.get("without_schema").asLong());
        assertEquals(2, document.get("failing").asLong());
        JsonNode first = document.get("rows").get(0);
        assertEquals(wrongTotal.toString(), first.get("id").asText());
        assertEquals("order", first.get("aggregate_type").asText());
        assertEquals("o-2", first.get("aggregate_id").asText());
        assertEquals("OrderPlaced", first.get("event_type").asText());
        assertEquals("order/OrderPlaced.schema.json", first.get("schema").asText());
        assertEquals(2, first.get("errors").size());
        assertTrue(first.get("errors").findValuesAsText("pointer").containsAll(List.of("", "/total")),
                first.toString());
    }

    @Test
    void limitListsTheOldestButCountsAll() {
        CliFixture.Result result = outbox.set("outbox.schemas-dir", schemas.toString()).run("validate", "--limit", "1");

        assertEquals(4, result.exit(), result.toString());
        assertTrue(result.out().startsWith("Checked 4 PENDING rows of outbox against 1 schema in " + schemas
                + " (1 without a schema): 2 would fail, the oldest 1 shown (--limit N shows more):\n"), result.out());
        assertFalse(result.out().contains(wrongId.toString()), result.out());
    }

    @Test
    void exitsZeroWhenEveryRowWouldPass(@TempDir Path relaxed) throws IOException {
        write(relaxed, "order/OrderPlaced.schema.json", "{\"type\": \"object\"}");

        CliFixture.Result result = outbox.set("outbox.schemas-dir", relaxed.toString()).run("validate");

        assertEquals(0, result.exit(), result.toString());
        assertEquals("Checked 4 PENDING rows of outbox against 1 schema in " + relaxed
                + " (1 without a schema): none would fail.\n", result.out());
    }

    @Test
    void noSchemasDirectoryOrABadSchemaIsABadSetting(@TempDir Path broken) throws IOException {
        CliFixture.Result unset = outbox.set("outbox.schemas-dir", "").run("validate");
        assertEquals(2, unset.exit(), unset.toString());
        assertEquals("outbox-relay: invalid setting outbox.schemas-dir='': names no directory: there are no schemas "
                + "to check against\n", unset.err());

        Path file = write(broken, "order/OrderPlaced.schema.json", "{\"type\": \"text\"}");
        CliFixture.Result bad = outbox.set("outbox.schemas-dir", broken.toString()).run("validate");
        assertEquals(2, bad.exit(), bad.toString());
        assertTrue(bad.err().startsWith("outbox-relay: invalid setting outbox.schemas-dir='" + broken
                + "': schema file " + file + " is not a valid schema: "), bad.err());
    }

    private static UUID insert(String aggregateId, String eventType, String payload, String status) {
        UUID id = UUID.randomUUID();
        db.update("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload) "
                + "VALUES (?, 'order', ?, ?, " + db.json() + ")", id, aggregateId, eventType, payload);
        if (!status.equals("PENDING")) {
            db.update("UPDATE outbox SET status = ?, published_at = CASE WHEN ? = 'PUBLISHED' THEN now() END "
                    + "WHERE id = ?", status, status, id);
        }
        return id;
    }

    private static Path write(Path dir, String relative, String content) throws IOException {
        Path file = dir.resolve(relative);
        Files.createDirectories(file.getParent());
        return Files.writeString(file, content);
    }
}
