package io.outboxrelay.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

import static org.awaitility.Awaitility.await;

/**
 * A real Kafka 4.x broker in KRaft combined mode, run as a child JVM from the classpath Maven resolved for
 * tools/kafka-broker (its kafka-clients 4.x must not meet the relay's 3.9.1). Bound to 127.0.0.1 on free ports.
 * The same broker can be stopped and started again on the same port and log directory (outage tests).
 */
public final class KafkaBroker implements AutoCloseable {

    private final Path dir;
    private final int port;
    private final int controllerPort;
    private Process process;

    private KafkaBroker(Path dir, int port, int controllerPort) {
        this.dir = dir;
        this.port = port;
        this.controllerPort = controllerPort;
    }

    public static KafkaBroker start() {
        try {
            KafkaBroker broker = new KafkaBroker(Files.createTempDirectory("kafka-broker"), freePort(), freePort());
            broker.format();
            broker.startProcess();
            return broker;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /** The broker's process id (it changes when the broker is restarted): the benchmarks read its CPU from /proc. */
    public long pid() {
        return process.pid();
    }

    public Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()));
    }

    public void createTopic(String name, int partitions, Map<String, String> config) {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(config))).all()
                    .get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot create topic " + name, e);
        }
    }

    /** Stops the broker process (SIGTERM, then SIGKILL), keeping its data for {@link #restart()}. */
    public void stop() {
        if (process != null) {
            process.destroy();
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            process = null;
        }
    }

    public void restart() {
        stop();
        startProcess();
    }

    @Override
    public void close() {
        stop();
        deleteRecursively(dir);
    }

    private void format() throws IOException {
        Files.writeString(dir.resolve("server.properties"), serverProperties(), StandardCharsets.UTF_8);
        String clusterId = Base64.getUrlEncoder().withoutPadding().encodeToString(uuidBytes());
        Process format = java("kafka.tools.StorageTool", "format", "--cluster-id=" + clusterId,
                "-c", dir.resolve("server.properties").toString(), "--standalone")
                .redirectOutput(dir.resolve("format.log").toFile())
                .redirectErrorStream(true)
                .start();
        try {
            if (!format.waitFor(60, TimeUnit.SECONDS) || format.exitValue() != 0) {
                throw new IllegalStateException("kafka storage format failed: "
                        + Files.readString(dir.resolve("format.log")));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private void startProcess() {
        try {
            process = java("kafka.Kafka", dir.resolve("server.properties").toString())
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("broker.log").toFile()))
                    .redirectErrorStream(true)
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        await("kafka broker on " + bootstrapServers()).atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(250))
                .ignoreExceptions()
                .until(() -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException("kafka broker exited: "
                                + Files.readString(dir.resolve("broker.log")));
                    }
                    try (Admin admin = admin()) {
                        return !admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty();
                    }
                });
    }

    private ProcessBuilder java(String mainClass, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms128m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", brokerClasspath(), mainClass));
        command.addAll(List.of(args));
        return new ProcessBuilder(command);
    }

    private String serverProperties() {
        Properties p = new Properties();
        p.setProperty("process.roles", "broker,controller");
        p.setProperty("node.id", "1");
        p.setProperty("controller.quorum.bootstrap.servers", "127.0.0.1:" + controllerPort);
        p.setProperty("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.setProperty("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.setProperty("controller.listener.names", "CONTROLLER");
        p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.setProperty("log.dirs", dir.resolve("data").toString());
        p.setProperty("num.partitions", "3");
        p.setProperty("auto.create.topics.enable", "true");
        p.setProperty("offsets.topic.replication.factor", "1");
        p.setProperty("offsets.topic.num.partitions", "3");
        p.setProperty("transaction.state.log.replication.factor", "1");
        p.setProperty("transaction.state.log.min.isr", "1");
        p.setProperty("share.coordinator.state.topic.replication.factor", "1");
        p.setProperty("share.coordinator.state.topic.min.isr", "1");
        p.setProperty("group.initial.rebalance.delay.ms", "0");
        StringBuilder text = new StringBuilder();
        p.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        return text.toString();
    }

    private static String brokerClasspath() throws IOException {
        String file = System.getProperty("kafka.broker.classpath.file", "target/kafka-broker.classpath");
        Path path = Path.of(file);
        if (!Files.exists(path)) {
            throw new IllegalStateException(path + " is missing: run the tests through Maven (mvn test), "
                    + "which resolves the broker's classpath from tools/kafka-broker/pom.xml");
        }
        return Files.readString(path).trim();
    }

    private static byte[] uuidBytes() {
        UUID uuid = UUID.randomUUID();
        byte[] bytes = new byte[16];
        long hi = uuid.getMostSignificantBits();
        long lo = uuid.getLeastSignificantBits();
        for (int i = 0; i < 8; i++) {
            bytes[i] = (byte) (hi >>> (56 - 8 * i));
            bytes[8 + i] = (byte) (lo >>> (56 - 8 * i));
        }
        return bytes;
    }

    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
    }

    static void deleteRecursively(Path root) {
        try (var paths = Files.walk(root)) {
            paths.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // temporary files only: nothing to lose
        }
    }
}
