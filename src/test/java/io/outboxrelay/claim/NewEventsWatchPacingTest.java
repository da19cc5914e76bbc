package io.outboxrelay.claim;

import java.util.ArrayList;
import java.util.List;

import io.outboxrelay.claim.NewEventsWatch.Look;
import io.outboxrelay.claim.NewEventsWatch.Pacing;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The new-events watch's rhythm (NewEventsWatch.Pacing), without a database: what each look leads to and how long the
 * watch pauses after it. Transaction ids are made up; what matters is their order: {@code oldestRunning} is the
 * snapshot's xmin (the oldest transaction still running), {@code nextTransaction} the id {@code txid_current()} would
 * take now (above every one assigned so far); with no transaction running the two are equal. As the watch does, a look
 * brings {@code nextTransaction} as its mark only when the pacing wants one ({@link Pacing#wantsMark()}: the first
 * quiet look after a move), and 0 otherwise.
 */
class NewEventsWatchPacingTest {

    /** Fastest 1 ms, slowest 25 ms (outbox.wake-up.max-interval-ms' default), in nanoseconds as the watch has them. */
    private static final long FASTEST = 1_000_000;
    private static final long SLOWEST = 25_000_000;
    /** Looks within this of a move settle even while an older transaction holds the horizon back. */
    private static final long SETTLE = 100_000_000;

    /** The looks' clock: unless a test says otherwise, looks are further apart than the settle time. */
    private long now;

    private Look look(Pacing pacing, boolean moved, long oldestRunning, long nextTransaction) {
        now += 2 * SETTLE;
        // NewEventsWatch.watch: txid_current() only on the quiet look that wants a mark
        long mark = !moved && pacing.wantsMark() ? nextTransaction : 0;
        return pacing.next(moved, oldestRunning, mark, now);
    }

    @Test
    void newsWakesTheClaimsAndLooksAgainAtTheFastestPace() {
        Pacing pacing = new Pacing(FASTEST, SLOWEST, SETTLE);
        // quiet for a while: the pause has grown
        for (int i = 0; i < 5; i++) {
            assertEquals(Look.QUIET, look(pacing, false, 100, 100));
        }
        assertEquals(SLOWEST, pacing.pauseNanos());

        assertEquals(Look.NEWS, look(pacing, true, 100, 101));
        assertEquals(FASTEST, pacing.pauseNanos(), "events arrive: the next look comes at once");
        assertEquals(Look.NEWS, look(pacing, true, 101, 102), "every move is news");
        assertEquals(FASTEST, pacing.pauseNanos(), "and keeps the pace");
    }

    @Test
    void quietLooksDoubleThePauseUpToTheSlowest() {
        Pacing pacing = new Pacing(FASTEST, SLOWEST, SETTLE);
        assertEquals(FASTEST, pacing.pauseNanos(), "a new watch starts at the fastest pace");

        List<Long> pauses = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            assertEquals(Look.QUIET, look(pacing, false, 100, 100), "nothing new, nothing to settle");
            pauses.add(pacing.pauseNanos() / 1_000_000);
        }
        assertEquals(List.of(2L, 4L, 8L, 16L, 25L, 25L, 25L), pauses, "ms after each quiet look");
    }

    @Test
    void aSlowestBelowTheFastestIsTheFastest() {
        Pacing pacing = new Pacing(FASTEST, FASTEST / 2, SETTLE);
        look(pacing, false, 100, 100);
        assertEquals(FASTEST, pacing.pauseNanos());
    }

    @Test
    void afterNewsTheFirstQuietLookNotesTheMarkAndTheWatchSettlesOnceTheOldestRunningReachesIt() {
        Pacing pacing = new Pacing(FASTEST, SLOWEST, SETTLE);
        // the writers of the new events run transactions 100 to 104
        assertEquals(Look.NEWS, look(pacing, true, 100, 105));
        // the first quiet look: the next id to be assigned is 110 now; that is the mark, not 105 (the news look's)
        assertEquals(Look.QUIET, look(pacing, false, 105, 110), "105 would have reached a mark taken at the news");
        // later looks do not move the mark: 112 > 110 has been assigned since
        assertEquals(Look.QUIET, look(pacing, false, 109, 112), "a transaction below the mark still runs");
        assertEquals(Look.SETTLE, look(pacing, false, 110, 112), "every transaction below the mark has ended");
        // exactly once
        assertEquals(Look.QUIET, look(pacing, false, 112, 112));
        assertEquals(Look.QUIET, look(pacing, false, 200, 300));
    }

    @Test
    void whenNothingRunsTheFirstQuietLookSettlesAtOnce() {
        Pacing pacing = new Pacing(FASTEST, SLOWEST, SETTLE);
        assertEquals(Look.NEWS, look(pacing, true, 100, 101));
        // xmin = xmax: no transaction running, the writers of the moved values have all ended
        assertEquals(Look.SETTLE, look(pacing, false, 101, 101));
        assertEquals(Look.QUIET, look(pacing, false, 101, 101));
    }

    @Test
    void theWatchDoesNotSettleBeforeAnyNewsNorWithoutAQuietLook() {
        Pacing pacing = new Pacing(FASTEST, SLOWEST, SETTLE);
        // a fresh watch: nothing moved yet, so nothing to settle however far the horizon goes
        assertEquals(Look.QUIET, look(pacing, false, 500, 500));
        assertEquals(Look.QUIET, look(pacing, false, 900, 900));
        // while the value keeps moving, every look is news, never a settle
        for (int i = 0; i < 5; i++) {
            assertEquals(Look.NEWS, look(pacing, true, 1_000 + i, 1_000 + i));
        }
    }

    @Test
    void theMarkIsTakenFromTheFirstQuietLookAfterAMoveAndIgnoredOnEveryOtherLook() {
        Pacing pacing = new Pacing(FASTEST, SLOWEST, SETTLE);
        assertFalse(pacing.wantsMark(), "a fresh watch has nothing to settle");
        assertEquals(Look.NEWS, pacing.next(true, 100, 1, 2 * SETTLE), "a news look's mark is not taken");
        assertTrue(pacing.wantsMark());
        assertEquals(Look.QUIET, pacing.next(false, 100, 110, 4 * SETTLE), "mark 110; 100 still runs");
        assertFalse(pacing.wantsMark());
        assertEquals(Look.QUIET, pacing.next(false, 105, 1, 6 * SETTLE), "a later look's mark is ignored: still 110");
        assertEquals(Look.SETTLE, pacing.next(false, 110, 0, 8 * SETTLE));
        assertFalse(pacing.wantsMark(), "settled: no mark until the next move");
    }

    @Test
    void newsAgainResetsTheMarkAndSettlesAgainLater() {
        Pacing pacing = new Pacing(FASTEST, SLOWEST, SETTLE);
        assertFalse(pacing.wantsMark(), "nothing moved yet");
        assertEquals(Look.NEWS, look(pacing, true, 100, 105));
        assertTrue(pacing.wantsMark(), "moved: the next quiet look takes a mark");
        assertEquals(Look.QUIET, look(pacing, false, 100, 110), "mark 110, transaction 100 still running");
        assertFalse(pacing.wantsMark(), "it has its mark");
        assertEquals(2 * FASTEST, pacing.pauseNanos());

        // more news before the first settled: the pace is the fastest again, the old mark is forgotten
        assertEquals(Look.NEWS, look(pacing, true, 100, 125));
        assertEquals(FASTEST, pacing.pauseNanos());
        assertTrue(pacing.wantsMark(), "moved again: the writers of the new values may have ids above mark 110");
        assertEquals(Look.QUIET, look(pacing, false, 100, 130), "new mark 130");
        assertEquals(Look.QUIET, look(pacing, false, 115, 131), "past the old mark 110, not the new one");
        assertEquals(Look.SETTLE, look(pacing, false, 130, 131));
        assertEquals(Look.QUIET, look(pacing, false, 131, 131));

        // news after a settle settles again, once
        assertEquals(Look.NEWS, look(pacing, true, 131, 140));
        assertTrue(pacing.wantsMark(), "a new mark after a settle too");
        assertEquals(Look.QUIET, look(pacing, false, 135, 141), "mark 141");
        assertEquals(Look.SETTLE, look(pacing, false, 141, 141));
        assertEquals(Look.QUIET, look(pacing, false, 141, 141));
    }

    @Test
    void thePauseKeepsDoublingWhileTheWatchWaitsToSettle() {
        Pacing pacing = new Pacing(FASTEST, SLOWEST, SETTLE);
        assertEquals(Look.NEWS, look(pacing, true, 100, 101));
        assertEquals(FASTEST, pacing.pauseNanos());
        assertEquals(Look.QUIET, look(pacing, false, 100, 102));
        assertEquals(2 * FASTEST, pacing.pauseNanos());
        assertEquals(Look.QUIET, look(pacing, false, 100, 102));
        assertEquals(4 * FASTEST, pacing.pauseNanos());
        assertEquals(Look.SETTLE, look(pacing, false, 102, 102));
        assertEquals(8 * FASTEST, pacing.pauseNanos(), "no events came: the settle does not speed the watch up");
    }

    @Test
    void whileAnOlderTransactionHoldsTheHorizonLooksSettleForTheSettleTimeAfterTheMove() {
        Pacing pacing = new Pacing(FASTEST, SLOWEST, SETTLE);
        // transaction 50 (a long report) runs throughout: the mark is never reached
        assertEquals(Look.NEWS, pacing.next(true, 50, 101, 0));
        assertEquals(Look.SETTLE, pacing.next(false, 50, 102, 1_000_000), "1 ms after the move");
        assertEquals(Look.SETTLE, pacing.next(false, 50, 102, 3_000_000), "3 ms after");
        assertEquals(Look.SETTLE, pacing.next(false, 50, 102, SETTLE), "at the settle time");
        assertEquals(Look.QUIET, pacing.next(false, 50, 102, SETTLE + 1), "past it: quiet");
        assertEquals(Look.QUIET, pacing.next(false, 50, 102, 3 * SETTLE));
        // the report ends: the transactions of the move have ended too, one last settle
        assertEquals(Look.SETTLE, pacing.next(false, 102, 102, 4 * SETTLE));
        assertEquals(Look.QUIET, pacing.next(false, 102, 102, 5 * SETTLE));
    }
}
