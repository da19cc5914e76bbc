package io.outboxrelay.claim;

import java.util.concurrent.TimeUnit;

import org.apache.camel.CamelContext;
import org.apache.camel.Consumer;
import org.apache.camel.spi.ScheduledPollConsumerScheduler;
import org.apache.camel.support.service.ServiceSupport;

/**
 * Scheduler of the claim consumer: polls as soon as {@link #wakeUp()} is called (a NOTIFY from the outbox's insert
 * trigger) and otherwise every outbox.poll-delay-ms as a safety net. A poll that claims rows polls again at once
 * (the consumer is greedy), so a busy outbox is drained back to back and an idle one costs one query per interval.
 */
public class ClaimScheduler extends ServiceSupport implements ScheduledPollConsumerScheduler {

    private static final long INITIAL_DELAY_MILLIS = 1_000;

    private final long intervalMillis;
    private final Object lock = new Object();
    private boolean wakeUpPending;
    private CamelContext camelContext;
    private Runnable task;
    private Thread thread;

    public ClaimScheduler(long intervalMillis) {
        this.intervalMillis = intervalMillis;
    }

    /** Polls now (or right after the poll in progress); several calls before the poll count as one. */
    public void wakeUp() {
        synchronized (lock) {
            wakeUpPending = true;
            lock.notifyAll();
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
    public synchronized void startScheduler() {
        if (thread == null) {
            thread = new Thread(this::loop, "outbox-claim-scheduler");
            thread.setDaemon(true);
            thread.start();
        }
    }

    @Override
    public boolean isSchedulerStarted() {
        return thread != null;
    }

    private void loop() {
        try {
            // like Camel's own scheduler, the first poll waits: the consumer finishes starting after its scheduler
            Thread.sleep(INITIAL_DELAY_MILLIS);
            while (isRunAllowed()) {
                Runnable poll = task;
                if (poll != null) {
                    poll.run();
                }
                awaitWakeUp();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Returns on {@link #wakeUp()} or after the poll interval. */
    private void awaitWakeUp() throws InterruptedException {
        synchronized (lock) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(intervalMillis);
            long left = deadline - System.nanoTime();
            while (!wakeUpPending && isRunAllowed() && left > 0) {
                TimeUnit.NANOSECONDS.timedWait(lock, left);
                left = deadline - System.nanoTime();
            }
            wakeUpPending = false;
        }
    }

    @Override
    protected void doStop() throws Exception {
        Thread running = thread;
        thread = null;
        if (running != null) {
            wakeUp();
            running.join(TimeUnit.SECONDS.toMillis(30));
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
