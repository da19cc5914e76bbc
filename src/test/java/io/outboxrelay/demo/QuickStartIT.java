package io.outboxrelay.demo;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.outboxrelay.settings.Database;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The quick start, run as a user runs it (its own Kafka broker, the relay jar, the writer, the example consumer
 * route): orders written are published and consumed exactly once, a re-sent event is dropped by the inbox, and
 * Ctrl-C leaves no process behind. On MariaDB (--db mariadb) the shorter run only: orders flow, the re-sent copy is
 * dropped, Ctrl-C stops everything.
 */
class QuickStartIT {

    /** Each demo process's output file, by pid. */
    private static final Map<Long, Path> LOGS = new ConcurrentHashMap<>();

    private final List<TestDatabase> databases = new ArrayList<>();

    @AfterEach
    void dropDemoDatabases() {
        databases.forEach(TestDatabase::close);
    }

    @Test
    void ordersArePublishedAndConsumedExactlyOnce() throws Exception {
        String database = demoDatabase(Database.POSTGRESQL);
        Process demo = start(database, "--seconds", "20", "--rate", "4");
        List<ProcessHandle> children = awaitRunning(demo);
        assertTrue(demo.waitFor(120, TimeUnit.SECONDS), "the demo stops by itself");
        assertEquals(0, demo.exitValue(), output(demo));
        assertAllGone(children);

        String output = output(demo);
        assertTrue(output.contains("published  outbox.event.order  key=order-0001"), output);
        assertTrue(output.contains("dropped    duplicate of"), output);
        assertTrue(output.contains("/observe/metrics"), output);

        TestDatabase db = TestDatabase.existing(database);
        long orders = db.count("SELECT count(*) FROM orders");
        assertTrue(orders >= 40, "about 4 orders a second for 20 s: " + orders);
        assertEquals(orders, db.count("SELECT count(*) FROM outbox"), "one event per order, same transaction");
        long published = db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'");
        long rejected = db.count("SELECT count(*) FROM outbox WHERE status <> 'PUBLISHED'");
        assertEquals(orders / 15, rejected, "only the oversized orders are not published");
        assertEquals(published, db.count("SELECT count(*) FROM received_orders"), "every published order consumed");
        assertEquals(published, db.count("SELECT count(DISTINCT ce_id) FROM received_orders"), "and only once");
        assertEquals(0, db.count("SELECT count(*) FROM received_orders r JOIN outbox o ON o.id::text = r.ce_id "
                + "WHERE o.status <> 'PUBLISHED'"));
        assertTrue(db.count("SELECT count(*) FROM inbox_duplicates d JOIN received_orders r USING (ce_id)") >= 1,
                "the re-sent event reached the consumer again and was dropped");
    }

    /** PostgreSQL in the suite; MariaDB (./quickstart --db mariadb) too with -Dtest.database=POSTGRESQL,MARIADB. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.outboxrelay.support.TestDatabases#postgresql")
    void ctrlCStopsEverything(Database database) throws Exception {
        String name = demoDatabase(database);
        Process demo = start(name, "--db", database.dialect());
        List<ProcessHandle> children = awaitRunning(demo);
        // orders flow, and the copy re-sent after the 10th order reaches the consumer, whose inbox drops it
        await().atMost(Duration.ofSeconds(90)).until(() -> output(demo).contains("dropped    duplicate of"));
        new ProcessBuilder("kill", "-INT", Long.toString(demo.pid())).start().waitFor();
        assertTrue(demo.waitFor(90, TimeUnit.SECONDS), "Ctrl-C ends the demo");
        assertAllGone(children);
        assertTrue(output(demo).contains("Stopped."), output(demo));

        TestDatabase db = TestDatabase.existing(database, name);
        long consumed = db.count("SELECT count(*) FROM received_orders");
        assertTrue(consumed >= 1, output(demo));
        assertEquals(consumed, db.count("SELECT count(DISTINCT ce_id) FROM received_orders"), "each once");
        assertTrue(db.count("SELECT count(*) FROM inbox_duplicates d JOIN received_orders r USING (ce_id)") >= 1,
                "the re-sent event reached the consumer again and was dropped");
    }

    private String demoDatabase(Database database) {
        // unique: another build on the same server drops its own demo databases by name
        String name = "outbox_demo_it_" + java.util.UUID.randomUUID().toString().substring(0, 8);
        databases.add(TestDatabase.existing(database, name));
        return name;
    }

    private static Process start(String database, String... extra) throws Exception {
        Path log = Files.createTempFile(Files.createDirectories(Path.of("target", "relay-logs")),
                "quickstart-", ".log");
        // started as a terminal starts it: with SIGINT at its default disposition (a JVM started with SIGINT
        // ignored, as background jobs are, cannot handle Ctrl-C at all)
        List<String> command = new ArrayList<>(List.of("perl", "-e", "$SIG{INT} = 'DEFAULT'; exec @ARGV or die $!",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dkafka.broker.classpath.file=" + System.getProperty("kafka.broker.classpath.file"),
                "-Drelay.jar=" + System.getProperty("relay.jar"),
                "-cp", System.getProperty("java.class.path"), QuickStart.class.getName(),
                "--database", database, "--port", Integer.toString(freePort())));
        command.addAll(List.of(extra));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        LOGS.put(process.pid(), log);
        return process;
    }

    private static String output(Process process) throws Exception {
        return Files.readString(LOGS.get(process.pid()));
    }

    /** Waits until the relay and the broker run, and returns them. */
    private static List<ProcessHandle> awaitRunning(Process demo) throws Exception {
        await().atMost(Duration.ofSeconds(120)).until(() -> {
            if (!demo.isAlive()) {
                throw new AssertionError("demo exited:\n" + output(demo));
            }
            return output(demo).contains("/observe/metrics");
        });
        List<ProcessHandle> children = demo.descendants().toList();
        assertTrue(children.size() >= 2, "a Kafka broker and the relay: " + children);
        return children;
    }

    private static void assertAllGone(List<ProcessHandle> children) {
        await().atMost(Duration.ofSeconds(30)).until(() -> children.stream().noneMatch(ProcessHandle::isAlive));
    }

    private static int freePort() throws Exception {
        try (var socket = new java.net.ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
