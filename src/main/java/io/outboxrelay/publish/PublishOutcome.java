package io.outboxrelay.publish;

/**
 * What became of a claimed batch: the ids the broker acknowledged (to mark PUBLISHED) and the ids given back unsent
 * (to release). Failed attempts are recorded by the failure route itself. Typed arrays bind as uuid[] in SQL.
 */
public class PublishOutcome {

    private final String[] published;
    private final String[] released;

    public PublishOutcome(String[] published, String[] released) {
        this.published = published;
        this.released = released;
    }

    public String[] getPublished() {
        return published;
    }

    public String[] getReleased() {
        return released;
    }
}
