package io.outboxrelay.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.activemq.artemis.core.config.impl.ConfigurationImpl;
import org.apache.activemq.artemis.core.server.embedded.EmbeddedActiveMQ;

/** A real ActiveMQ Artemis broker inside the test JVM: no persistence, no security, one TCP acceptor on 127.0.0.1. */
public final class EmbeddedArtemis implements AutoCloseable {

    private final EmbeddedActiveMQ server = new EmbeddedActiveMQ();
    private final String url;

    private EmbeddedArtemis(int port) throws Exception {
        url = "tcp://127.0.0.1:" + port;
        // a directory of its own: brokers of tests running at once (in parallel forks) never share one
        Path dir = Files.createTempDirectory(Files.createDirectories(Path.of("target", "artemis")), "broker-");
        server.setConfiguration(new ConfigurationImpl()
                .setPersistenceEnabled(false)
                .setSecurityEnabled(false)
                .setJournalDirectory(dir.resolve("journal").toString())
                .setBindingsDirectory(dir.resolve("bindings").toString())
                .setLargeMessagesDirectory(dir.resolve("large").toString())
                .setPagingDirectory(dir.resolve("paging").toString())
                .addAcceptorConfiguration("tcp", url));
        server.start();
    }

    public static EmbeddedArtemis start() {
        try {
            return new EmbeddedArtemis(KafkaBroker.freePort());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw new IllegalStateException("cannot start Artemis", e);
        }
    }

    public String url() {
        return url;
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
