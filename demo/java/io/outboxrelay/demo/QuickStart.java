package io.outboxrelay.demo;

import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import io.outboxrelay.support.EmbeddedArtemis;
import io.outboxrelay.support.KafkaBroker;
import io.outboxrelay.support.RelayProcess;
import sun.misc.Signal;

/**
 * The quick start ({@code ./quickstart}): a real Kafka broker (KRaft, child JVM, 127.0.0.1) or, with --jms, an
 * embedded Artemis broker; the relay jar against a database of the demo's own on the local PostgreSQL (or, with
 * --db mariadb, the local MariaDB); a writer that commits an order and its outbox event in one transaction a few times
 * a second; the example consumer route; and a screen showing what happens. Ctrl-C stops everything it started.
 *
 * Options: --seconds N (stop by itself), --jms, --db postgresql|mariadb (postgresql), --port P (management port,
 * 8080), --database NAME (outbox_demo), --rate N (orders per second, 3), --poison-every N (every N-th order is too big
 * for Kafka, 15; 0 = never).
 */
public final class QuickStart {

    private final Map<String, String> options;
    private final PrintStream out = System.out;
    private volatile boolean stopRequested;

    private QuickStart(Map<String, String> options) {
        this.options = options;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options;
        DemoDatabase database;
        try {
            options = options(args);
            database = database(options);
        } catch (IllegalArgumentException e) {
            System.err.println("quickstart: " + e.getMessage());
            System.exit(2);
            return;
        }
        try {
            database.recreate();
        } catch (SQLException e) {
            System.err.println("quickstart: " + database.unreachable(e));
            System.exit(1);
            return;
        }
        new QuickStart(options).run(database);
        // broker clients may leave non-daemon threads behind
        System.exit(0);
    }

    /** The command line's options by name ("jms" for the flag --jms). */
    static Map<String, String> options(String... args) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--jms")) {
                options.put("jms", "true");
            } else if (args[i].startsWith("--") && i + 1 < args.length) {
                options.put(args[i].substring(2), args[++i]);
            } else if (!args[i].isBlank()) {
                throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        return options;
    }

    /** --db and --database. */
    static DemoDatabase database(Map<String, String> options) {
        return DemoDatabase.of(options.getOrDefault("db", "postgresql"),
                options.getOrDefault("database", "outbox_demo"));
    }

    private void run(DemoDatabase database) throws Exception {
        boolean jms = options.containsKey("jms");
        int port = Integer.parseInt(options.getOrDefault("port", "8080"));
        int rate = Integer.parseInt(options.getOrDefault("rate", "3"));
        int poisonEvery = jms ? 0 : Integer.parseInt(options.getOrDefault("poison-every", "15"));
        long seconds = Long.parseLong(options.getOrDefault("seconds", "0"));

        // Ctrl-C (or SIGTERM): the main loop notices within a quarter second and stops what it started. Handled
        // explicitly, so it also works where the shell started us with SIGINT ignored.
        Signal.handle(new Signal("INT"), signal -> stopRequested = true);
        Signal.handle(new Signal("TERM"), signal -> stopRequested = true);

        out.println("Outbox relay quick start");
        out.println(database.describe());

        KafkaBroker kafka = null;
        EmbeddedArtemis artemis = null;
        RelayProcess relay = null;
        // the writer's transactions on one connection; the screen reads on its own, each statement committed at once
        // (so it always sees what the relay and the consumer committed, and holds nothing the writer waits for)
        try (Connection connection = database.connect(); Connection screenConnection = database.connect()) {
            Map<String, String> env = new HashMap<>(database.relayEnvironment());
            env.put("OUTBOX_ROUTES_DIR", "examples");
            env.put("OUTBOX_MAX_ATTEMPTS", "3");
            env.put("OUTBOX_BACKOFF_INITIAL", "PT2S");
            String topicHint;
            if (jms) {
                artemis = EmbeddedArtemis.start();
                env.put("OUTBOX_ENDPOINT", "jms:queue:orders");
                env.put("OUTBOX_JMS_BROKER_URL", artemis.url());
                env.put("DEMO_KAFKA", "false");
                env.put("DEMO_JMS", "true");
                topicHint = "jms:queue:orders";
                out.println("  Artemis     " + artemis.url() + "   (embedded, started by the demo)");
            } else {
                kafka = KafkaBroker.start();
                // a topic limit the demo's oversized orders break, to show the failure path
                kafka.createTopic("outbox.event.order", 3, Map.of("max.message.bytes", "131072"));
                env.put("CAMEL_COMPONENT_KAFKA_BROKERS", kafka.bootstrapServers());
                topicHint = "outbox.event.order";
                out.println("  Kafka       " + kafka.bootstrapServers()
                        + "   (KRaft, started by the demo from Maven artifacts)");
            }
            database.createSchema(connection);
            relay = RelayProcess.startJar(env, "-Dcamel.management.port=" + port);
            out.println("  Relay       java -jar target/outbox-relay.jar   (log: " + relay.logFile() + ")");
            relay.awaitOutput("(outbox-relay) started", Duration.ofSeconds(120));
            awaitReady(port);
            out.println("  Health      http://127.0.0.1:" + port + "/observe/health");
            out.println("  Metrics     http://127.0.0.1:" + port + "/observe/metrics");
            out.println("  Consumer    examples/order-consumer.camel.yaml   (inbox: drops duplicates by ce_id)");
            out.printf("Writing %d orders a second%s. %s%n%n", rate,
                    poisonEvery > 0 ? ", every " + poisonEvery + "th too big for its topic" : "",
                    seconds > 0 ? "Stopping after " + seconds + " s." : "Ctrl-C to stop.");

            DemoWriter writer = new DemoWriter(connection, database, poisonEvery);
            DemoScreen screen = new DemoScreen(screenConnection, database, out, System.console() != null,
                    topicHint);
            long start = System.nanoTime();
            long deadline = seconds > 0 ? start + seconds * 1_000_000_000L : Long.MAX_VALUE;
            boolean resent = false;
            while (!stopRequested && System.nanoTime() < deadline) {
                long due = start + (long) writer.written() * 1_000_000_000L / rate;
                if (System.nanoTime() >= due) {
                    screen.line(writer.writeOrder());
                }
                if (!resent && writer.written() >= 10) {
                    // from the 10th order on, once an event is published (a slow start publishes later)
                    String line = writer.resendOnePublished();
                    if (line != null) {
                        screen.line(line);
                        resent = true;
                    }
                }
                screen.refresh(writer.written());
                pause(250);
            }
            if (!stopRequested) {
                screen.line("stopped writing; waiting for the relay and the consumer to catch up");
                long drainDeadline = System.nanoTime() + 30_000_000_000L;
                while (!stopRequested && !screen.settled() && System.nanoTime() < drainDeadline) {
                    screen.refresh(writer.written());
                    pause(250);
                }
                screen.refresh(writer.written());
            }
            screen.finish();
        } finally {
            stopAll(relay, kafka, artemis);
            out.println("Stopped. The demo database " + database.url() + " is left for you to look at.");
        }
    }

    /** Stops the relay (gracefully, forcibly after 40 s), then the broker, whatever happens to either. */
    private static void stopAll(RelayProcess relay, KafkaBroker kafka, EmbeddedArtemis artemis) throws Exception {
        try {
            if (relay != null) {
                relay.terminate();
                relay.waitForExit(Duration.ofSeconds(40));
            }
        } finally {
            if (relay != null) {
                relay.close();
            }
            if (kafka != null) {
                kafka.close();
            }
            if (artemis != null) {
                artemis.close();
            }
        }
    }

    private void awaitReady(int port) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/observe/health/ready")).build();
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline && !stopRequested) {
            try {
                if (http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (java.io.IOException e) {
                // not listening yet
            }
            pause(250);
        }
        throw new IllegalStateException("the relay did not become ready on port " + port);
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            // Ctrl-C: the loop sees stopRequested
        }
    }
}
