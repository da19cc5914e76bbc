package io.outboxrelay.claim;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.outboxrelay.claim.NewEventsWatch.Look;
import io.outboxrelay.claim.NewEventsWatch.Pacing;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The new-events watch's rhythm (NewEventsWatch.Pacing), without a database: what each look leads to and how long the
 * watch pauses after it. Writers are named by made-up virtual transaction ids; as the watch does, a look brings the
 * open writers only when it is quiet and the pacing is unsettled.
 */
class NewEventsWatchPacingTest {

    /** Fastest 1 ms, slowest 25 ms (outbox.wake-up.max-interval-ms' default), in nanoseconds as the watch has them. */
    private static final long FASTEST = 1_000_000;
    private static final long SLOWEST = 25_000_000;

    /** How many times a look asked for the open writers (the lock look's cost). */
    private int writerLooks;

    private Look look(Pacing pacing, boolean moved, String... openWriters) {
        // NewEventsWatch.watchOn: the writers only on a quiet look while unsettled
        boolean asks = !moved && pacing.unsettled();
        writerLooks += asks ? 1 : 0;
        return pacing.next(moved, asks ? Set.of(openWriters) : Set.of());
    }

    @Test
    void newsWakesTheClaimsAndLooksAgainAtTheFastestPace() {
        Pacing pacing = new Pacing(FASTEST, SLOWEST);
        for (int i = 0; i < 5; i++) {
            assertEquals(Look.QUIET, look(pacing, false));
        }
        assertEquals(SLOWEST, pacing.pauseNanos());

        assertEquals(Look.NEWS, look(pacing, true));
        assertEquals(FASTEST, pacing.pauseNanos(), "events arrive: the next look comes at once");
        assertEquals(Look.NEWS, look(pacing, true), "every move is news");
        assertEquals(FASTEST, pacing.pauseNanos(), "and keeps the pace");
    }

    @Test
    void quietLooksDoubleThePauseUpToTheSlowest() {
        Pacing pacing = new Pacing(FASTEST, SLOWEST);
        assertEquals(FASTEST, pacing.pauseNanos(), "a new watch starts at the fastest pace");

        List<Long> pauses = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            assertEquals(Look.QUIET, look(pacing, false), "nothing new, nothing to settle");
            pauses.add(pacing.pauseNanos() / 1_000_000);
        }
        assertEquals(List.of(2L, 4L, 8L, 16L, 25L, 25L, 25L), pauses, "ms after each quiet look");
        assertEquals(0, writerLooks, "an idle watch never looks at the writers");
    }

    @Test
    void aSlowestBelowTheFastestIsTheFastest() {
        Pacing pacing = new Pacing(FASTEST, FASTEST / 2);
        look(pacing, false);
        assertEquals(FASTEST, pacing.pauseNanos());
    }

    @Test
    void theFirstQuietLookAfterNewsSettlesAndWithNoWriterOpenTheWatchIsSettled() {
        Pacing pacing = new Pacing(FASTEST, SLOWEST);
        assertEquals(Look.NEWS, look(pacing, true));
        assertTrue(pacing.unsettled());
        // the writer committed between the two looks: its event is visible now
        assertEquals(Look.SETTLE, look(pacing, false));
        assertFalse(pacing.unsettled());
        assertEquals(Look.QUIET, look(pacing, false));
        assertEquals(1, writerLooks, "one look at the writers for a burst that committed at once");
    }

    @Test
    void aLateCommitSettlesWhenItsWriterIsGoneWhateverElseStaysOpen() {
        Pacing pacing = new Pacing(FASTEST, SLOWEST);
        assertEquals(Look.NEWS, look(pacing, true));
        // the first quiet look: the writer still works; another session has held the lock for long (a stranger)
        assertEquals(Look.SETTLE, look(pacing, false, "3/7", "9/2"));
        for (int i = 0; i < 10; i++) {
            assertEquals(Look.QUIET, look(pacing, false, "3/7", "9/2"), "nothing ended: nothing to claim");
        }
        assertEquals(SLOWEST, pacing.pauseNanos(), "waiting for the writer at the slowest pace");
        // the writer commits three seconds later
        assertEquals(Look.SETTLE, look(pacing, false, "9/2"));
        assertTrue(pacing.unsettled(), "the stranger was open after the news: it may be a writer too");
        assertEquals(Look.QUIET, look(pacing, false, "9/2"));
        assertEquals(Look.SETTLE, look(pacing, false));
        assertFalse(pacing.unsettled());
        int looks = writerLooks;
        assertEquals(Look.QUIET, look(pacing, false, "9/3"));
        assertEquals(looks, writerLooks, "settled: a writer that came later is the next move's business");
    }

    @Test
    void aWriterThatStartsAnotherTransactionHasEndedItsFirst() {
        Pacing pacing = new Pacing(FASTEST, SLOWEST);
        look(pacing, true);
        assertEquals(Look.SETTLE, look(pacing, false, "3/7"));
        // the same session, its next transaction (the local id counts up)
        assertEquals(Look.SETTLE, look(pacing, false, "3/8"));
        assertFalse(pacing.unsettled(), "3/8 was not open when the events were new");
    }

    @Test
    void newsWhileUnsettledNotesTheWritersAgain() {
        Pacing pacing = new Pacing(FASTEST, SLOWEST);
        look(pacing, true);
        assertEquals(Look.SETTLE, look(pacing, false, "3/7"));
        // another event: its writer opened after the first note
        assertEquals(Look.NEWS, look(pacing, true));
        assertEquals(Look.SETTLE, look(pacing, false, "3/7", "4/1"));
        assertEquals(Look.SETTLE, look(pacing, false, "3/7"), "the new writer committed");
        assertEquals(Look.SETTLE, look(pacing, false), "and the first");
        assertFalse(pacing.unsettled());
    }
}
