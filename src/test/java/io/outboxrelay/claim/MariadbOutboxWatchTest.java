package io.outboxrelay.claim;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.outboxrelay.schema.SchemaMigration;
import io.outboxrelay.settings.Database;
import io.outboxrelay.settings.TableName;
import io.outboxrelay.sql.OutboxSql;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mariadb.jdbc.MariaDbDataSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The new-events watch on MariaDB (MariadbOutboxWatch) finds an event committed late, below a seq already seen, by its
 * writer's end in INNODB_TRX, also when another reader of INNODB_TRX (another relay) keeps InnoDB's copy of it old
 * while the watch first notes the writers: the note taken from the old copy lacks the late writer, and is taken again
 * from the first fresh copy.
 */
@Tag("services")
class MariadbOutboxWatchTest {

    private static final String INSERT = "INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) "
            + "VALUES ('t', 'k', 'E', '{}')";

    @Test
    void aLateCommitBelowASeenSeqSettlesAlsoWhenAnotherReaderKeptInnodbsCopyOld() throws Exception {
        try (TestDatabase db = TestDatabase.create(Database.MARIADB)) {
            MariaDbDataSource dataSource = new MariaDbDataSource(db.url());
            dataSource.setUser(db.user());
            assertTrue(new SchemaMigration(dataSource, Database.MARIADB, db.url(),
                    TableName.parse("outbox.table", "outbox"), 32, true).migrateSchema());
            db.update(INSERT);
            AtomicInteger news = new AtomicInteger();
            AtomicInteger settles = new AtomicInteger();
            NewEventsWatch watch = new NewEventsWatch(dataSource, new MariadbOutboxWatch(
                    OutboxSql.resolved(Database.MARIADB, "watch-sequence", Map.of("outbox.table", "outbox")),
                    OutboxSql.resolved(Database.MARIADB, "watch-writers", Map.of("outbox.table", "outbox"))),
                    1, 25, news::incrementAndGet, settles::incrementAndGet, () -> false);
            watch.start();
            AtomicBoolean reading = new AtomicBoolean(true);
            AtomicInteger reads = new AtomicInteger();
            Thread otherReader = new Thread(() -> readInnodbTrxUntilStopped(db, reading, reads),
                    "other-innodb-trx-reader");
            try (Connection late = db.connect()) {
                await().atMost(Duration.ofSeconds(5)).until(() -> news.get() > 0 && settles.get() > 0);
                // from now on InnoDB's copy of its transactions is not refreshed: someone reads it every 20 ms
                otherReader.start();
                await().atMost(Duration.ofSeconds(5)).until(() -> reads.get() >= 2);

                late.setAutoCommit(false);
                try (PreparedStatement insert = late.prepareStatement(INSERT)) {
                    insert.executeUpdate();
                }
                // a later-numbered event commits at once: new events, and the watch notes the writers still open
                int newsBefore = news.get();
                int settlesAtNews = settles.get();
                db.update(INSERT);
                await("news of the committed event").atMost(Duration.ofSeconds(10))
                        .until(() -> news.get() > newsBefore);
                // the first quiet look after the news notes the writers (from the old copy) and settles
                await("the writers noted").atMost(Duration.ofSeconds(10)).until(() -> settles.get() > settlesAtNews);
                reading.set(false);
                otherReader.join();
                // the first fresh copy lists the late writer: its end is what settles now
                await("the writers noted again from a fresh copy").atMost(Duration.ofSeconds(5))
                        .until(() -> news.get() > newsBefore + 1);
                int settlesBefore = settles.get();
                await("nothing more while the late writer is open").during(Duration.ofMillis(300))
                        .atMost(Duration.ofSeconds(2)).until(() -> settles.get() == settlesBefore);
                late.commit();
                await("settled once the late writer committed").atMost(Duration.ofSeconds(3))
                        .until(() -> settles.get() > settlesBefore);
            } finally {
                reading.set(false);
                watch.stop();
            }
        }
    }

    /** Another relay's watch, much more eager: a read every 20 ms. */
    private static void readInnodbTrxUntilStopped(TestDatabase db, AtomicBoolean reading, AtomicInteger reads) {
        try (Connection reader = db.connect(); Statement st = reader.createStatement()) {
            while (reading.get()) {
                st.executeQuery("SELECT count(*) FROM information_schema.INNODB_TRX").close();
                reads.incrementAndGet();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
