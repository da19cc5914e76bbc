package io.outboxrelay.claim;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which free partitions a claim reads: pure logic, no database. */
class PartitionChoiceTest {

    private final PartitionChoice choice = new PartitionChoice(4);

    private static List<Integer> free(int... partitions) {
        List<Integer> free = new ArrayList<>();
        for (int p : partitions) {
            free.add(p);
        }
        return free;
    }

    @Test
    void withoutABacklogOneClaimReadsEveryFreePartitionStartingAtADifferentOneEachTime() {
        assertFalse(choice.backlog());
        Set<Integer> firsts = new HashSet<>();
        for (int i = 0; i < 4; i++) {
            List<Integer> chosen = choice.choose(free(3, 1, 0, 2), true, 100);
            assertEquals(Set.of(0, 1, 2, 3), Set.copyOf(chosen));
            firsts.add(chosen.get(0));
        }
        assertEquals(Set.of(0, 1, 2, 3), firsts, "every partition went first once in four claims");
    }

    @Test
    void aBacklogIsSpreadOverTheClaimsThatMayRun() {
        for (int p = 0; p < 8; p++) {
            choice.claimEnded(p, true);
        }
        assertTrue(choice.backlog());
        List<Integer> chosen = choice.choose(free(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), true, 100);
        assertEquals(2, chosen.size(), "8 partitions with a backlog over 4 claims");
        assertTrue(chosen.stream().allMatch(p -> p < 8), "the partitions that filled their share go first");
        assertEquals(10, choice.choose(free(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), false, 100).size(),
                "the last claim that may run takes whatever is free");
    }

    @Test
    void aPartitionReadShortIsNoLongerABacklog() {
        choice.claimEnded(5, true);
        choice.claimEnded(5, false);
        assertFalse(choice.backlog());
    }

    @Test
    void neverMorePartitionsThanEventsLeftToClaim() {
        assertEquals(3, choice.choose(free(0, 1, 2, 3, 4, 5), true, 3).size());
    }
}
