package io.outboxrelay.claim;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.outboxrelay.sql.Connections;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.support.DefaultConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim loop: claims the next events of the partitions this instance owns, hands each to the route as its own
 * exchange, and marks the ones the broker acknowledged in the next claim's round trip (sql/claim.sql). At most
 * outbox.batch-size events are claimed and not yet marked at any time: a crash re-sends at most that many.
 * <p>
 * Why a consumer of its own rather than camel-sql's polling consumer and a splitter: the claim depends on what is in
 * flight (which partitions, up to which seq, how much room), marks share its round trip, and events go to the route
 * one by one in seq order from this one thread without waiting for each other's acknowledgement (pipelined), which
 * keeps a key's order with a transport that keeps send order (the idempotent Kafka producer: a partition's records
 * are appended in send order). For any other transport the next event goes only after the previous one completed.
 * The route's own error handling (onException, redelivery) deals with a failing event first; an exchange that still
 * fails is recorded here as a failed attempt (failure.FailureBookkeeping), one that the route marked released is
 * given back.
 */
public class OutboxConsumer extends DefaultConsumer implements PartitionOwnership.InFlight {

    /** Set by the failure route: given back unsent, no attempt counted (the broker was down). */
    public static final String RELEASED = "outboxReleased";

    private static final Logger LOG = LoggerFactory.getLogger(OutboxConsumer.class);
    /** Acknowledged events are marked at the latest this long after the first of them, when nothing is claimed. */
    private static final long MARK_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** Failures older than this cannot matter to a claim in progress: forgotten. */
    private static final long FAILED_KEY_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final long GATE_RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /** A partition that filled its share last time is asked for this many at least of the others. */
    private static final int PROBE = 8;

    private enum Outcome { PUBLISHED, RELEASED, FAILED }

    /** @param cause why it failed, for FAILED */
    private record Settled(OutboxEvent event, Outcome outcome, Throwable cause) {
    }

    private record FailedKey(long seq, long atNanos) {
    }

    private final OutboxEndpoint endpoint;
    private final Claiming claiming;

    // shared with the completion callbacks and the heartbeat
    private final Map<String, OutboxEvent> inFlight = new ConcurrentHashMap<>();
    private final Map<Integer, AtomicInteger> inFlightByPartition = new ConcurrentHashMap<>();
    private final Queue<Settled> settled = new ConcurrentLinkedQueue<>();
    private final Object signal = new Object();
    private boolean wakeUp;
    private boolean rescanRequested;
    /** The lowest seq newly committed inserts wrote since the last claim (their notifications): read again from it. */
    private long notifiedFirstSeq = Long.MAX_VALUE;
    private volatile boolean running;
    /** Partitions a claim in progress reads from: not drained, whatever the heartbeat said meanwhile. */
    private final Set<Integer> claimingFrom = new HashSet<>();

    // the loop's own
    private final List<String> acked = new ArrayList<>();
    private long firstAckNanos;
    private final Map<Integer, Long> claimedUpTo = new HashMap<>();
    private final Set<Integer> filledLastTime = new HashSet<>();
    /** Keys whose event failed lately: that event's seq, and when the failure came in. */
    private final Map<String, FailedKey> failedKeys = new HashMap<>();
    private boolean claimAgain;
    /** When the last claim (not a mark alone) read the table: failures that came in later are not reflected in it. */
    private long claimReadNanos;
    /** A claim is wanted (woken, rescan due, rows given back) but waits for room or for the gate. */
    private boolean claimPending;
    private long nextRescanNanos;
    /** A statement failed: rows may be leased to this instance that it does not know as in flight. */
    private boolean lostRows;
    private Connection connection;
    private PreparedStatement claimStatement;
    private Thread loop;
    private InsertListener insertListener;

    public OutboxConsumer(OutboxEndpoint endpoint, Processor processor, Claiming claiming) {
        super(endpoint, processor);
        this.endpoint = endpoint;
        this.claiming = claiming;
    }

    /** Claim now: new events were committed (NOTIFY), or partitions changed hands. */
    public void wakeUp() {
        wakeUp(false, Long.MAX_VALUE);
    }

    /**
     * @param rescan   look at every partition from its start: older events may be claimable again (a replay)
     * @param firstSeq the lowest seq of the committed inserts that woke it: a transaction that commits after a
     *                 later-numbered one brings events below what was claimed already
     */
    private void wakeUp(boolean rescan, long firstSeq) {
        synchronized (signal) {
            wakeUp = true;
            rescanRequested |= rescan;
            notifiedFirstSeq = Math.min(notifiedFirstSeq, firstSeq);
            signal.notifyAll();
        }
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        running = true;
        claiming.ownership().start(this);
        // inserts wake the loop at once (NOTIFY from the outbox's insert trigger)
        insertListener = new InsertListener(claiming.dataSource(), claiming.table(), this::wakeUp);

        insertListener.start();
        loop = new Thread(this::run, "outbox-claim");
        loop.setDaemon(true);
        loop.start();
    }

    @Override
    protected void doStop() throws Exception {
        running = false;
        insertListener.stop();
        wakeUp();
        if (loop != null) {
            // the loop finishes what is in flight, marks it, gives the rest back
            loop.join(claiming.drainTimeout().toMillis() + 5_000);
            loop = null;
        }
        claiming.ownership().leave();
        super.doStop();
    }

    private void run() {
        long retryDelay = 1_000;
        while (running) {
            try {
                settle();
                if (!step()) {
                    awaitSignal();
                }
                retryDelay = 1_000;
            } catch (SQLException e) {
                closeConnection();
                lostRows = true;
                LOG.warn("Claim failed, retrying in {} ms: {}", retryDelay, e.getMessage());
                pause(retryDelay);
                retryDelay = Math.min(retryDelay * 2, 10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (RuntimeException e) {
                LOG.error("Claim loop error, retrying: {}", e.toString(), e);
                pause(retryDelay);
            }
        }
        finish();
    }

    /** One claim (with the marks due) or one mark; false when there was nothing to do. */
    private boolean step() throws SQLException, InterruptedException {
        if (lostRows) {
            releaseLost();
        }
        long now = System.nanoTime();
        long firstSeq;
        synchronized (signal) {
            if (rescanRequested) {
                nextRescanNanos = now;
                rescanRequested = false;
            }
            firstSeq = notifiedFirstSeq;
            notifiedFirstSeq = Long.MAX_VALUE;
        }
        if (firstSeq != Long.MAX_VALUE) {
            // events committed just now may be numbered below what was claimed in their partitions
            claimedUpTo.replaceAll((partition, seq) -> Math.min(seq, firstSeq - 1));
        }
        if (now >= nextRescanNanos) {
            // the safety net: look at every owned partition from its start again (replays, missed notifications,
            // retries that came due)
            claimedUpTo.clear();
            nextRescanNanos = now + claiming.pollDelay().toNanos();
            claimPending = true;
        }
        synchronized (signal) {
            claimPending |= wakeUp;
            wakeUp = false;
        }
        // claimed and not yet marked: in flight, or acknowledged and waiting for the next mark
        int room = claiming.batchSize() - inFlight.size();
        boolean claim = (claimPending || claimAgain) && room > 0
                && (room >= claiming.batchSize() / 4 || inFlight.size() == acked.size()) && claiming.mayClaim();
        boolean mark = claim || markDue(now);
        if (!claim && !mark) {
            return false;
        }
        if (claim) {
            claimPending = false;
        }
        List<OutboxEvent> claimed;
        try {
            claimed = claimAndMark(claim ? plan(room) : Map.of());
            claimed.sort(Comparator.comparingLong(OutboxEvent::seq));
            for (OutboxEvent e : claimed) {
                claimedUpTo.merge(e.partition(), e.seq(), Math::max);
                track(e);
            }
        } finally {
            synchronized (claimingFrom) {
                claimingFrom.clear();
            }
        }
        dispatch(claimed);
        return true;
    }

    /** Enough acknowledged events, or the first of them waiting long enough, to mark them without a claim. */
    private boolean markDue(long now) {
        return !acked.isEmpty()
                && (acked.size() >= claiming.batchSize() / 4 || now - firstAckNanos >= MARK_DELAY_NANOS);
    }

    /** Per owned partition (not being given up): how many events to claim after which seq. */
    private Map<Integer, Integer> plan(int room) {
        List<Integer> partitions = new ArrayList<>();
        synchronized (claimingFrom) {
            claiming.ownership().owned().values().forEach(p -> {
                if (!p.givingUp()) {
                    partitions.add(p.number());
                }
            });
            claimingFrom.addAll(partitions);
        }
        Map<Integer, Integer> take = new HashMap<>();
        if (partitions.isEmpty()) {
            return take;
        }
        filledLastTime.retainAll(partitions);
        int busy = filledLastTime.size();
        for (int p : partitions) {
            int share = busy == 0 ? room / partitions.size()
                    : filledLastTime.contains(p) ? room / busy : Math.min(PROBE, room / partitions.size());
            take.put(p, Math.max(1, share));
        }
        return take;
    }

    private List<OutboxEvent> claimAndMark(Map<Integer, Integer> take) throws SQLException {
        Connection c = connection();
        if (!take.isEmpty()) {
            claimReadNanos = System.nanoTime();
        }
        Integer[] partitions = take.keySet().toArray(new Integer[0]);
        Long[] after = new Long[partitions.length];
        Integer[] limits = new Integer[partitions.length];
        for (int i = 0; i < partitions.length; i++) {
            after[i] = claimedUpTo.getOrDefault(partitions[i], 0L);
            limits[i] = take.get(partitions[i]);
        }
        claimStatement.setArray(1, c.createArrayOf("uuid", acked.toArray()));
        claimStatement.setArray(2, c.createArrayOf("integer", partitions));
        claimStatement.setArray(3, c.createArrayOf("bigint", after));
        claimStatement.setArray(4, c.createArrayOf("integer", limits));
        List<OutboxEvent> claimed = new ArrayList<>();
        try (ResultSet rs = claimStatement.executeQuery()) {
            while (rs.next()) {
                claimed.add(new OutboxEvent(rs.getString(1), rs.getLong(2), rs.getInt(3), rs.getString(4),
                        rs.getString(5), rs.getString(6), rs.getString(7), rs.getString(8),
                        rs.getTimestamp(9).toInstant(), rs.getInt(10), rs.getBoolean(11)));
            }
        }
        // marked: no longer this instance's to keep
        acked.forEach(id -> untrack(inFlight.get(id)));
        acked.clear();
        if (take.isEmpty()) {
            return claimed;
        }
        // greedy: a partition that filled its share probably has more; claim again as soon as there is room
        Map<Integer, Integer> counts = new HashMap<>();
        claimed.forEach(e -> counts.merge(e.partition(), 1, Integer::sum));
        filledLastTime.clear();
        take.forEach((p, limit) -> {
            if (counts.getOrDefault(p, 0) >= limit) {
                filledLastTime.add(p);
            }
        });
        claimAgain = !filledLastTime.isEmpty();
        if (!claimed.isEmpty()) {
            claiming.claimed(claimed.size());
        }
        return claimed;
    }

    /**
     * Hands the claimed events (tracked, in seq order) to the route; what may not be sent now is given back. Every
     * claimed event counts as in flight from the claim on (its partition is not given up) until it completes or is
     * given back.
     */
    private void dispatch(List<OutboxEvent> claimed) throws SQLException, InterruptedException {
        if (claimed.isEmpty()) {
            return;
        }
        List<OutboxEvent> giveBack = new ArrayList<>();
        // counts an event once it is sent or set aside: a statement failing after that leaves it tracked
        int handed = 0;
        try {
            while (handed < claimed.size()) {
                OutboxEvent e = claimed.get(handed++);
                // an event of the key failed after this claim read the table (the claim could not skip its later
                // events yet): they wait for it
                FailedKey failed = failedKeys.get(e.key());
                boolean heldBack = failed != null && e.seq() > failed.seq() && failed.atNanos() >= claimReadNanos;
                if (!running || !claiming.ownership().maySend(e.partition()) || claiming.brokerDown() || heldBack) {
                    untrack(e);
                    giveBack.add(e);
                    continue;
                }
                send(e);
                if (!settled.isEmpty()) {
                    // completed already (a failure on this thread, or a transport that answered at once): a failed
                    // event's later events of its key are given back before they are sent
                    settle();
                }
                if (markDue(System.nanoTime())) {
                    // a long dispatch (one event at a time) marks as it goes (this claim's events still count as
                    // read at claimReadNanos: a mark alone does not move it)
                    claimAndMark(Map.of());
                }
            }
        } finally {
            // a statement failed on the way: the events not handed to the route are forgotten here, and given back
            // by releaseLost() before the next claim
            claimed.subList(handed, claimed.size()).forEach(this::untrack);
        }
        release(giveBack);
    }

    /** Claimed and not yet marked or given back: its partition is kept. */
    private void track(OutboxEvent event) {
        inFlight.put(event.id(), event);
        inFlightByPartition.computeIfAbsent(event.partition(), p -> new AtomicInteger()).incrementAndGet();
    }

    private void untrack(OutboxEvent event) {
        inFlight.remove(event.id());
        inFlightByPartition.get(event.partition()).decrementAndGet();
    }

    private void send(OutboxEvent event) throws InterruptedException {
        Exchange exchange = createExchange(false);
        exchange.getMessage().setBody(event);
        CompletableFuture<Void> done = claiming.pipelined() ? null : new CompletableFuture<>();
        getAsyncProcessor().process(exchange, doneSync -> {
            completed(exchange, event);
            if (done != null) {
                done.complete(null);
            }
        });
        if (done != null) {
            try {
                done.get();
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** On the thread that completed the exchange: what became of the event. */
    private void completed(Exchange exchange, OutboxEvent event) {
        Throwable cause = exchange.getException();
        Outcome outcome = exchange.getProperty(RELEASED, false, Boolean.class) ? Outcome.RELEASED
                : cause != null ? Outcome.FAILED
                : Outcome.PUBLISHED;
        releaseExchange(exchange, false);
        settled.add(new Settled(event, outcome, cause));
        synchronized (signal) {
            signal.notifyAll();
        }
    }

    /** Takes in what completed: acknowledged events to mark, events to give back, failures that hold keys. */
    private void settle() throws SQLException {
        List<OutboxEvent> giveBack = new ArrayList<>();
        long now = System.nanoTime();
        for (Settled s = settled.poll(); s != null; s = settled.poll()) {
            OutboxEvent e = s.event();
            switch (s.outcome()) {
                case PUBLISHED -> {
                    if (acked.isEmpty()) {
                        firstAckNanos = now;
                    }
                    acked.add(e.id());
                    claiming.published(e);
                    if (e.holdsKey()) {
                        // the key's later events waited for this one: they are claimable now
                        rewind(e.partition(), e.seq());
                    }
                }
                case RELEASED -> {
                    untrack(e);
                    giveBack.add(e);
                }
                case FAILED -> {
                    recordFailure(e, s.cause());
                    untrack(e);
                    failedKeys.put(e.key(), new FailedKey(e.seq(), now));
                    rewind(e.partition(), e.seq() - 1);
                }
            }
        }
        failedKeys.values().removeIf(failed -> failed.atNanos() < now - FAILED_KEY_NANOS);
        release(giveBack);
    }

    /**
     * The route gave up on the event (its redeliveries exhausted): the attempt is recorded on the row, which releases
     * its lease and holds its key back. If the database cannot take it now, the event is left to its lease and
     * claimed again when it expires, without the attempt counted.
     */
    private void recordFailure(OutboxEvent event, Throwable cause) {
        try {
            claiming.failures().record(connection(), event, cause);
        } catch (SQLException e) {
            closeConnection();
            lostRows = true;
            LOG.warn("Could not record the failed attempt of event {} ({}); it is given back without the attempt "
                    + "counted: {}", event.id(), cause, e.getMessage());
        }
    }

    private void release(List<OutboxEvent> events) throws SQLException {
        if (events.isEmpty()) {
            return;
        }
        Connection c = connection();
        try (PreparedStatement statement = c.prepareStatement(claiming.releaseSql())) {
            statement.setArray(1, c.createArrayOf("uuid", events.stream().map(OutboxEvent::id).toArray()));
            statement.executeUpdate();
        }
        events.forEach(e -> rewind(e.partition(), e.seq() - 1));
    }

    /** Gives back what a failed statement may have left leased to this instance, then looks at every partition again. */
    private void releaseLost() throws SQLException {
        Connection c = connection();
        try (PreparedStatement statement = c.prepareStatement(claiming.releaseLostSql())) {
            statement.setArray(1, c.createArrayOf("uuid", inFlight.keySet().toArray()));
            int released = statement.executeUpdate();
            if (released > 0) {
                LOG.info("Gave back {} events a failed statement left leased to this instance", released);
            }
        }
        lostRows = false;
        claimedUpTo.clear();
        claimPending = true;
    }

    private void rewind(int partition, long toSeq) {
        claimedUpTo.computeIfPresent(partition, (p, seq) -> Math.min(seq, toSeq));
        claimPending = true;
    }

    private void awaitSignal() throws InterruptedException {
        long now = System.nanoTime();
        long until = nextRescanNanos;
        if (!acked.isEmpty()) {
            until = Math.min(until, firstAckNanos + MARK_DELAY_NANOS);
        }
        if (claimPending || claimAgain) {
            // waiting for room (a completion wakes the loop) or for the gate (schema, broker): look again soon
            until = Math.min(until, now + GATE_RECHECK_NANOS);
        }
        synchronized (signal) {
            if (!wakeUp && settled.isEmpty() && running && until > now) {
                TimeUnit.NANOSECONDS.timedWait(signal, until - now);
            }
        }
    }

    /** On stop: the events in flight complete (up to the drain timeout), the acknowledged ones are marked. */
    private void finish() {
        long deadline = System.nanoTime() + claiming.drainTimeout().toNanos();
        try {
            while (inFlight.size() > acked.size() && System.nanoTime() < deadline) {
                synchronized (signal) {
                    if (settled.isEmpty()) {
                        signal.wait(100);
                    }
                }
                settle();
            }
            settle();
            if (!acked.isEmpty()) {
                claimAndMark(Map.of());
            }
            if (!inFlight.isEmpty()) {
                LOG.warn("{} events still unanswered at shutdown; they are left to their lease", inFlight.size());
            }
        } catch (SQLException e) {
            LOG.warn("Could not mark the last acknowledged events on shutdown; they will be sent again: {}",
                    e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeConnection();
        }
    }

    private Connection connection() throws SQLException {
        if (connection == null) {
            connection = claiming.dataSource().getConnection();
            claimStatement = connection.prepareStatement(claiming.claimSql());
        }
        return connection;
    }

    private void closeConnection() {
        Connections.closeQuietly(connection);
        connection = null;
        claimStatement = null;
    }

    private void pause(long millis) {
        synchronized (signal) {
            try {
                if (running) {
                    signal.wait(millis);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // PartitionOwnership.InFlight: read by the heartbeat

    @Override
    public int count() {
        return inFlight.size();
    }

    @Override
    public Integer[] busyPartitions() {
        return inFlightByPartition.entrySet().stream().filter(e -> e.getValue().get() > 0).map(Map.Entry::getKey)
                .toArray(Integer[]::new);
    }

    @Override
    public Integer[] drained() {
        synchronized (claimingFrom) {
            return claiming.ownership().owned().values().stream()
                    .filter(p -> p.givingUp() && !claimingFrom.contains(p.number())
                            && inFlightByPartition.getOrDefault(p.number(), new AtomicInteger()).get() == 0)
                    .map(PartitionOwnership.Partition::number).toArray(Integer[]::new);
        }
    }

    @Override
    public void ownershipChanged() {
        wakeUp();
    }

    @Override
    public OutboxEndpoint getEndpoint() {
        return endpoint;
    }
}
