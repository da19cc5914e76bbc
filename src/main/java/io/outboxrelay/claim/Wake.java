package io.outboxrelay.claim;

/**
 * What started a claim: the body of the claim route's wake-ups, set as the enum itself ({@code ${type:...}}), since
 * Camel converts a String to an enum parameter through a type-converter lookup that misses, and that miss was a third
 * of the claim threads' samples at a steady rate (JFR).
 */
public enum Wake {
    /** The poll timer's safety net: one claim reads every free partition a little. */
    POLL,
    /** Something arrived (an insert, a replay, partitions taken over): the claims that may run share them. */
    NEWS,
    /** A claim ended with more to do (its share filled, or news it could not take came meanwhile). */
    AGAIN
}
