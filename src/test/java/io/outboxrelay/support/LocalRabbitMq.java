package io.outboxrelay.support;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import org.apache.qpid.jms.JmsConnectionFactory;

import static org.awaitility.Awaitility.await;

/**
 * The machine's RabbitMQ (127.0.0.1:5672, guest from localhost), driven with its own command-line tools as root: the
 * AMQP 1.0 plugin enabled, durable queues declared and deleted, the broker stopped and started. Messages are read back
 * over AMQP 1.0 with the Qpid JMS client the relay uses.
 */
public final class LocalRabbitMq {

    /** What the relay is given: RabbitMQ 3.x sends to the declared (durable) queue NAME at /amq/queue/NAME. */
    public static final String RELAY_URL = "amqp://127.0.0.1:5672?jms.queuePrefix=/amq/queue/";
    /** RabbitMQ 3.10 crashes a consumer's link on a timed receive unless the client waits on what it has already. */
    private static final String CONSUMER_URL = RELAY_URL + "&jms.receiveLocalOnly=true";

    private LocalRabbitMq() {
    }

    /** Turns on AMQP 1.0 (idempotent; it listens on 5672 beside AMQP 0-9-1). */
    public static void enableAmqp10() {
        run("rabbitmq-plugins", "enable", "rabbitmq_amqp1_0");
    }

    /**
     * A durable queue, as an operator declares it before the relay sends to it (RabbitMQ drops a message for a missing
     * queue). The import is asynchronous: this waits until the queue is listed.
     */
    public static void declareDurableQueue(String name) {
        declareDurableQueue(name, "{}");
    }

    /** @param arguments the queue's arguments as a JSON object, e.g. {"x-max-length": 2} */
    public static void declareDurableQueue(String name, String arguments) {
        String definitions = "{\"queues\": [{\"name\": \"" + name + "\", \"vhost\": \"/\", \"durable\": true, "
                + "\"auto_delete\": false, \"arguments\": " + arguments + "}]}";
        runWithInput(definitions, "rabbitmqctl", "import_definitions", "--format", "json");
        await().atMost(Duration.ofSeconds(30)).until(() -> queueNames().contains(name));
    }

    public static void deleteQueue(String name) {
        if (queueNames().contains(name)) {
            run("rabbitmqctl", "delete_queue", name);
        }
    }

    /** Stops the broker application: connections close, new ones are refused; durable queues keep their messages. */
    public static void stopBroker() {
        run("rabbitmqctl", "stop_app");
    }

    public static void startBroker() {
        run("rabbitmqctl", "start_app");
    }

    /** A message as a consumer sees it: its application properties (as strings) and its body. */
    public record Delivery(Map<String, String> properties, String body) {
    }

    /** Consumes (and acknowledges) the queue's messages, in queue order, until {@code expected} or the timeout. */
    public static List<Delivery> consume(String queue, int expected, Duration timeout) throws JMSException {
        List<Delivery> deliveries = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Connection connection = new JmsConnectionFactory(CONSUMER_URL).createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(queue));
            while (deliveries.size() < expected && System.nanoTime() < deadline) {
                Message message = consumer.receive(500);
                if (message != null) {
                    deliveries.add(delivery(message));
                }
            }
        }
        return deliveries;
    }

    private static Delivery delivery(Message message) throws JMSException {
        Map<String, String> properties = new HashMap<>();
        for (Object name : Collections.list(message.getPropertyNames())) {
            properties.put((String) name, message.getStringProperty((String) name));
        }
        BytesMessage bytes = (BytesMessage) message;
        byte[] body = new byte[(int) bytes.getBodyLength()];
        bytes.readBytes(body);
        return new Delivery(properties, new String(body, StandardCharsets.UTF_8));
    }

    private static List<String> queueNames() {
        return List.of(run("rabbitmqctl", "list_queues", "--quiet", "--no-table-headers", "name").split("\\R"));
    }

    private static String run(String... command) {
        return runWithInput(null, command);
    }

    private static String runWithInput(String input, String... command) {
        Path output = null;
        try {
            // to a file, not a pipe: a command that never ends cannot block the reader past the timeout
            output = Files.createTempFile("rabbitmq-", ".out");
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile())
                    .start();
            try (OutputStream stdin = process.getOutputStream()) {
                if (input != null) {
                    stdin.write(input.getBytes(StandardCharsets.UTF_8));
                }
            }
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish in 2 minutes");
            }
            String text = Files.readString(output);
            if (process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " exited " + process.exitValue() + ": "
                        + text + "\nThese tests need the machine's RabbitMQ on 127.0.0.1:5672 and its tools, as "
                        + "root (start it with: rabbitmq-server -detached)");
            }
            return text;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + command[0] + ": these tests need RabbitMQ installed "
                    + "here (rabbitmqctl, rabbitmq-plugins on the PATH) and running on 127.0.0.1:5672", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            if (output != null) {
                output.toFile().delete();
            }
        }
    }
}
