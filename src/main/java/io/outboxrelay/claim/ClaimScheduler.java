package io.outboxrelay.claim;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.camel.CamelContext;
import org.apache.camel.Consumer;
import org.apache.camel.spi.ScheduledPollConsumerScheduler;
import org.apache.camel.support.service.ServiceSupport;

/**
 * Scheduler of the claim consumer: polls as soon as {@link #wakeUp()} is called (a NOTIFY from the outbox's insert
 * trigger) and otherwise every outbox.poll-delay-ms as a safety net. A poll that claims rows polls again at once
 * (the consumer is greedy), so a busy outbox is drained back to back and an idle one costs one query per interval.
 * <p>
 * Several workers (outbox.claim.batches-in-flight) run the poll side by side: while one publishes its batch, another
 * claims and publishes the next. The claim statement keeps their batches apart by key, as it does for several relay
 * instances. A worker that claimed a batch wakes an idle one ({@link #wakeIdleWorker()}); the safety-net poll is
 * shared, so idle polling costs the same with any number of workers.
 */
public class ClaimScheduler extends ServiceSupport implements ScheduledPollConsumerScheduler {

    private static final long INITIAL_DELAY_MILLIS = 1_000;

    private final long intervalNanos;
    private final int workers;
    private final Object lock = new Object();
    private final List<Thread> threads = new ArrayList<>();
    private boolean wakeUpPending;
    private int idleWorkers;
    private long nextSafetyNetPoll;
    private CamelContext camelContext;
    private Runnable task;

    public ClaimScheduler(long intervalMillis, int workers) {
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMillis);
        this.workers = workers;
    }

    /** Polls now (or right after a poll in progress); several calls before the poll count as one. */
    public void wakeUp() {
        synchronized (lock) {
            wakeUpPending = true;
            lock.notify();
        }
    }

    /**
     * Lets an idle worker claim the next batch while the caller publishes its own. When every worker is busy this
     * is dropped: each of them polls again at once after its batch anyway.
     */
    public void wakeIdleWorker() {
        synchronized (lock) {
            if (idleWorkers > 0) {
                wakeUpPending = true;
                lock.notify();
            }
        }
    }

    @Override
    public void onInit(Consumer consumer) {
        // one consumer, nothing to prepare
    }

    @Override
    public void scheduleTask(Runnable task) {
        this.task = task;
    }

    @Override
    public void unscheduleTask() {
        task = null;
    }

    @Override
    public void startScheduler() {
        synchronized (lock) {
            if (threads.isEmpty()) {
                nextSafetyNetPoll = System.nanoTime() + intervalNanos;
                for (int worker = 0; worker < workers; worker++) {
                    boolean pollsFirst = worker == 0;
                    Thread thread = new Thread(() -> loop(pollsFirst), "outbox-claim-" + (worker + 1));
                    thread.setDaemon(true);
                    threads.add(thread);
                    thread.start();
                }
            }
        }
    }

    @Override
    public boolean isSchedulerStarted() {
        synchronized (lock) {
            return !threads.isEmpty();
        }
    }

    private void loop(boolean pollsFirst) {
        try {
            if (pollsFirst) {
                // like Camel's own scheduler, the first poll waits: the consumer finishes starting after its scheduler
                Thread.sleep(INITIAL_DELAY_MILLIS);
            } else {
                awaitTurn();
            }
            while (isRunAllowed()) {
                Runnable poll = task;
                if (poll != null) {
                    poll.run();
                }
                awaitTurn();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Returns on a wake-up, or when the shared safety-net poll is due. */
    private void awaitTurn() throws InterruptedException {
        synchronized (lock) {
            idleWorkers++;
            try {
                while (isRunAllowed()) {
                    if (wakeUpPending) {
                        wakeUpPending = false;
                        return;
                    }
                    long left = nextSafetyNetPoll - System.nanoTime();
                    if (left <= 0) {
                        nextSafetyNetPoll = System.nanoTime() + intervalNanos;
                        return;
                    }
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                }
            } finally {
                idleWorkers--;
            }
        }
    }

    @Override
    protected void doStop() throws Exception {
        List<Thread> running;
        synchronized (lock) {
            running = new ArrayList<>(threads);
            threads.clear();
            lock.notifyAll();
        }
        for (Thread thread : running) {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
    }

    @Override
    public void setCamelContext(CamelContext camelContext) {
        this.camelContext = camelContext;
    }

    @Override
    public CamelContext getCamelContext() {
        return camelContext;
    }
}
