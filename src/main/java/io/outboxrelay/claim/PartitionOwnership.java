package io.outboxrelay.claim;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.outboxrelay.sql.Connections;
import org.apache.camel.CamelContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's share of the outbox's partitions. Every outbox.instance.heartbeat one statement
 * (sql/heartbeat.sql) registers the instance, renews the leases of its partitions, and takes or gives up partitions
 * towards an even share of the live instances. A partition is given up only once the claim loop has stopped claiming
 * from it and nothing of it is in flight, so its next owner never overtakes an event of its previous owner. The consumer claims only from the
 * partitions held here, and sends a claimed event only while its partition's lease, as last confirmed, has more
 * than a third of outbox.lease left: when the database stops answering, sending stops well before another instance
 * may take the partition.
 * <p>
 * Camel's timer could fire the heartbeat, but its answer is state the claim loop reads on every event (which
 * partitions, confirmed until when), and a heartbeat that fails is an expected event of an outage, not a route error.
 */
public class PartitionOwnership {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionOwnership.class);

    /** What the claim loop tells the heartbeat about its work in flight, and hears back. */
    public interface InFlight {
        int count();

        /** Partitions with events in flight. */
        Integer[] busyPartitions();

        /** Partitions marked giving up that the claim loop no longer claims from and that have nothing in flight. */
        Integer[] drained();

        /** Partitions were taken or given up: claim again. */
        void ownershipChanged();
    }

    /** A partition this instance owns. */
    public record Partition(int number, long confirmedUntilNanos, boolean givingUp) {
    }

    private final CamelContext context;
    private final DataSource dataSource;
    private final String heartbeatSql;
    private final String leaveSql;
    private final Duration interval;
    private final long leaseNanos;
    private final OwnershipListener listener;
    private volatile Map<Integer, Partition> owned = Map.of();
    private volatile int liveInstances;
    private InFlight inFlight;
    private ScheduledExecutorService executor;
    private Connection connection;
    private boolean lastFailed;

    /** Told about every change of ownership (metrics). */
    public interface OwnershipListener {
        void owned(int partitions, int taken, int givenUp, int liveInstances);
    }

    public PartitionOwnership(CamelContext context, DataSource dataSource, String heartbeatSql, String leaveSql,
            Duration interval, Duration lease, OwnershipListener listener) {
        this.context = context;
        this.dataSource = dataSource;
        this.heartbeatSql = heartbeatSql;
        this.leaveSql = leaveSql;
        this.interval = interval;
        this.leaseNanos = lease.toNanos();
        this.listener = listener;
    }

    /** The partitions owned now, by number. */
    public Map<Integer, Partition> owned() {
        return owned;
    }

    public int liveInstances() {
        return liveInstances;
    }

    /** May an event of this partition be sent now? Only while it is owned and its lease confirmed for long enough. */
    public boolean maySend(int partition) {
        Partition p = owned.get(partition);
        return p != null && p.confirmedUntilNanos() - System.nanoTime() > leaseNanos / 3;
    }

    public synchronized void start(InFlight inFlight) {
        this.inFlight = inFlight;
        executor = context.getExecutorServiceManager().newSingleThreadScheduledExecutor(this, "outbox-heartbeat");
        executor.scheduleWithFixedDelay(this::beat, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Stops the heartbeat and gives every partition up at once, but those with events still unanswered (the events in
     * flight were settled as far as they could be): those wait for their lease to run out.
     */
    public synchronized void leave() {
        if (executor != null) {
            context.getExecutorServiceManager().shutdownGraceful(executor, 5_000);
            executor = null;
        }
        try (Connection c = dataSource.getConnection(); PreparedStatement statement = c.prepareStatement(leaveSql)) {
            statement.setArray(1, c.createArrayOf("integer", inFlight.busyPartitions()));
            statement.executeUpdate();
        } catch (SQLException e) {
            LOG.warn("Could not give up this instance's partitions on shutdown; the others take them when their lease "
                    + "expires: {}", e.getMessage());
        }
        owned = Map.of();
        closeConnection();
    }

    void beat() {
        long started = System.nanoTime();
        Map<Integer, Partition> now = new HashMap<>();
        int taken = 0;
        int instances = 0;
        try {
            if (connection == null) {
                connection = dataSource.getConnection();
            }
            try (PreparedStatement statement = connection.prepareStatement(heartbeatSql)) {
                statement.setInt(1, inFlight.count());
                statement.setArray(2, connection.createArrayOf("integer", inFlight.drained()));
                try (ResultSet rs = statement.executeQuery()) {
                    while (rs.next()) {
                        int number = rs.getInt("partition_number");
                        now.put(number, new Partition(number, started + leaseNanos, rs.getBoolean("giving_up")));
                        taken += rs.getBoolean("taken") ? 1 : 0;
                        instances = rs.getInt("live_instances");
                    }
                }
            }
        } catch (SQLException e) {
            closeConnection();
            if (!lastFailed) {
                LOG.warn("Heartbeat failed; this instance stops sending when its partitions' leases are no longer "
                        + "confirmed: {}", e.getMessage());
            }
            lastFailed = true;
            return;
        }
        if (lastFailed) {
            LOG.info("Heartbeat answered again");
            lastFailed = false;
        }
        Map<Integer, Partition> before = owned;
        int givenUp = (int) before.keySet().stream().filter(p -> !now.containsKey(p)).count();
        owned = Collections.unmodifiableMap(now);
        liveInstances = instances;
        if (taken > 0 || givenUp > 0) {
            LOG.info("Partitions: {} owned ({} taken, {} given up), {} live instances", now.size(), taken, givenUp,
                    instances);
        }
        listener.owned(now.size(), taken, givenUp, instances);
        if (taken > 0 || givenUp > 0) {
            // new partitions to claim from, or none left to give up: the claim loop looks again
            inFlight.ownershipChanged();
        }
    }

    private void closeConnection() {
        Connections.closeQuietly(connection);
        connection = null;
    }
}
