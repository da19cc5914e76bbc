package io.outboxrelay.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code failed}: the FAILED rows and nothing else, oldest first, by key, limited; last_error cut or whole; on
 * PostgreSQL and MariaDB.
 */
@Tag("services")
class FailedCommandTest extends OutboxTableTestSupport {

    private static final String TRACE = "org.apache.kafka.common.errors.RecordTooLargeException: The message is "
            + "209715 bytes when serialized which is larger than 131072, the value of max.message.bytes\n"
            + "\tat org.apache.kafka.clients.producer.KafkaProducer.doSend(KafkaProducer.java:1100)";

    private static final List<UUID> failed = new ArrayList<>();
    private static UUID pending;
    private static UUID published;

    @BeforeParameterizedClassInvocation
    static void rows() {
        failed.clear();
        failed.add(outbox.insert("order/o-1", "FAILED"));
        pending = outbox.insert("order/o-1", "PENDING");
        failed.add(outbox.insert("order/o-2", "FAILED"));
        published = outbox.insert("order/o-2", "PUBLISHED");
        failed.add(outbox.insert("invoice/o-1", "FAILED"));
        failed.add(outbox.insert("order/o-1", "FAILED"));
        db.update("UPDATE outbox SET last_error = ?, attempts = 10 WHERE id = ?", TRACE, failed.get(1));
    }


    @Test
    void listsEveryFailedRowOldestFirstWithTheFirstLineOfItsError() {
        CliFixture.Result result = outbox.run("failed");
        assertEquals(0, result.exit(), result.toString());
        assertEquals("", result.err());
        List<String> lines = result.out().lines().toList();
        assertEquals("4 FAILED rows in outbox, oldest first:", lines.get(0));
        assertTrue(lines.get(1).matches("ID {36}KEY {10}EVENT_TYPE {4}ATTEMPTS  CREATED_AT {12}LAST_ERROR"),
                result.out());
        assertEquals(6, lines.size(), result.out());
        String[] keys = {"order/o-1", "order/o-2", "invoice/o-1", "order/o-1"};
        for (int i = 0; i < 4; i++) {
            String line = lines.get(2 + i);
            assertTrue(line.startsWith(failed.get(i) + "  " + keys[i] + " "), line);
            assertTrue(line.contains(" OrderCreated "), line);
            assertTrue(line.matches(".*  \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ  org\\.apache\\.kafka\\..*"), line);
        }
        assertTrue(lines.get(2).matches(".* OrderCreated {9}3  .*  org.apache.kafka.common.errors."
                + "RecordTooLargeException: too large [0-9a-f-]+\\.\\.\\."), lines.get(2));
        // a long, multi-line error: its first line, cut to 100 characters
        String error = lines.get(3).substring(lines.get(3).indexOf("org.apache.kafka"));
        assertEquals(TRACE.substring(0, 97) + "...", error);
        assertTrue(lines.get(3).contains(" OrderCreated        10  "), lines.get(3));
        assertFalse(result.out().contains("KafkaProducer.doSend"), result.out());
        assertFalse(result.out().contains(pending.toString()), "a PENDING row is not listed");
        assertFalse(result.out().contains(published.toString()), "a PUBLISHED row is not listed");
    }

    @Test
    void jsonHasEveryColumnAndTheWholeError() {
        CliFixture.Result result = outbox.run("failed", "--json");
        assertEquals(0, result.exit(), result.toString());
        JsonNode document = result.json();
        assertEquals("outbox", document.get("table").asText());
        assertEquals(4, document.get("total").asLong());
        JsonNode rows = document.get("rows");
        assertEquals(4, rows.size());
        for (int i = 0; i < 4; i++) {
            assertEquals(failed.get(i).toString(), rows.get(i).get("id").asText());
        }
        JsonNode second = rows.get(1);
        assertEquals("order", second.get("aggregate_type").asText());
        assertEquals("o-2", second.get("aggregate_id").asText());
        assertEquals("OrderCreated", second.get("event_type").asText());
        assertEquals(10, second.get("attempts").asInt());
        assertEquals(TRACE, second.get("last_error").asText());
        assertTrue(second.get("created_at").asText().matches("\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z"), second.toString());
        assertTrue(second.get("seq").asLong() > rows.get(0).get("seq").asLong());
    }

    @Test
    void oneKeyEitherWay() {
        for (String[] args : List.of(new String[] {"failed", "--key", "order/o-1", "--json"},
                new String[] {"failed", "--aggregate-type", "order", "--aggregate-id=o-1", "--json"})) {
            CliFixture.Result result = outbox.run(args);
            assertEquals(0, result.exit(), result.toString());
            JsonNode rows = result.json().get("rows");
            assertEquals(2, rows.size(), result.out());
            assertEquals(failed.get(0).toString(), rows.get(0).get("id").asText());
            assertEquals(failed.get(3).toString(), rows.get(1).get("id").asText());
        }
        CliFixture.Result text = outbox.run("failed", "--key", "invoice/o-1");
        assertTrue(text.out().startsWith("1 FAILED row in outbox for key invoice/o-1, oldest first:\n"), text.out());
        CliFixture.Result none = outbox.run("failed", "--key", "order/o-3");
        assertEquals(0, none.exit(), none.toString());
        assertEquals("No FAILED rows in outbox for key order/o-3.\n", none.out());
    }

    @Test
    void limitShowsTheOldestAndSaysHowManyThereAre() {
        CliFixture.Result result = outbox.run("failed", "--limit", "2");
        assertEquals(0, result.exit(), result.toString());
        List<String> lines = result.out().lines().toList();
        assertEquals("4 FAILED rows in outbox, the oldest 2 shown (--limit N shows more), oldest first:", lines.get(0));
        assertEquals(4, lines.size(), result.out());
        assertTrue(lines.get(3).startsWith(failed.get(1).toString()), result.out());
        CliFixture.Result json = outbox.run("failed", "--limit=1", "--json");
        assertEquals(4, json.json().get("total").asLong());
        assertEquals(1, json.json().get("rows").size());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", value = {
        "failed --limit 0                 => --limit '0': expected an integer from 1 to 100000",
        "failed --limit 100001            => --limit '100001': expected an integer from 1 to 100000",
        "failed --limit many              => Invalid value for option '--limit': 'many' is not an int",
        "failed --limit                   => Missing required parameter for option '--limit'",
        "failed --limit 2 --limit 3       => option '--limit' (N) should be specified only once",
        "failed --key order               => Invalid value for option '--key': 'order' is not "
                + "AGGREGATE_TYPE/AGGREGATE_ID",
        "failed --key order/ --json       => Invalid value for option '--key': 'order/' is not",
        "failed --key order/o-1 --aggregate-type order --aggregate-id o-1 => Error: --key=TYPE/ID and "
                + "(--aggregate-type=T --aggregate-id=I) are mutually exclusive",
        "failed --aggregate-type order    => Error: Missing required argument(s): --aggregate-id=I",
        "failed --aggregate-id o-1        => Error: Missing required argument(s): --aggregate-type=T",
        "failed --status PENDING          => Unknown options: '--status', 'PENDING'",
        "failed --limt 5                  => Unknown options: '--limt', '5'; did you mean --limit?",
        "failed order/o-1                 => Unmatched argument at index 1: 'order/o-1'",
        "failed --json=yes                => Invalid value for option '--json': 'yes' is not a boolean",
    })
    void badUsageExitsTwoWithOneLine(String command, String message) {
        assertBadUsage(outbox.run(command.split(" ")), message);
    }

    @Test
    void anEmptyAggregateTypeOrIdIsBadUsage() {
        assertBadUsage(outbox.run("failed", "--aggregate-type", "", "--aggregate-id", "o-1"),
                "Invalid value for option '--aggregate-type': must not be empty");
        assertBadUsage(outbox.run("failed", "--aggregate-type", "order", "--aggregate-id="),
                "Invalid value for option '--aggregate-id': must not be empty");
    }

    private static void assertBadUsage(CliFixture.Result result, String message) {
        assertEquals(2, result.exit(), result.toString());
        assertEquals("", result.out());
        assertEquals(1, result.err().lines().count(), result.err());
        assertTrue(result.err().startsWith("outbox-relay: failed: " + message), result.err());
        assertTrue(result.err().strip().endsWith("('failed --help' shows the usage)"), result.err());
    }
}
