package io.outboxrelay.event;

/**
 * Every name the routes, the beans and the SQL share for what an exchange carries, defined here once (the routes'
 * YAML and sql/*.sql spell the same strings: ExchangeNamesTest fails on a name used there and missing here; the table
 * in docs/architecture.md lists them).
 */
public final class ExchangeNames {

    /** Property: the wake-up that started a claim (NEWS, POLL, AGAIN). */
    public static final String WAKE = "outboxWake";
    /** Property: the partitions a claim may read (claim.Grant). */
    public static final String GRANT = "outboxGrant";
    /** Property: a claim's events and what became of each ({@link OutboxEvent.Batch}). */
    public static final String BATCH = "outboxBatch";
    /** Property: how a claim's batch goes out, in parts and one by one (publish.BatchParts.Plan). */
    public static final String PLAN = "outboxPlan";
    /** Header: the endpoint a part is sent through (publish.PartEndpoints). */
    public static final String PART_ENDPOINT = "outboxPartEndpoint";
    /** Property: the id of the event being sent alone; read by sql/record-failure.sql. */
    public static final String EVENT_ID = "outboxEventId";
    /** Header: a failed attempt's description, the row's last_error; read by sql/record-failure.sql. */
    public static final String ERROR = "outboxError";
    /** Header: the failed event can never be sent (FAILED at once); read by sql/record-failure.sql. */
    public static final String UNPUBLISHABLE = "outboxUnpublishable";
    /** Property: the inbox consumer's name (the postgresql-inbox template's 'name'). */
    public static final String INBOX_CONSUMER = "inboxConsumer";
    /** Property: the inbox applied the message (its transaction is to commit). */
    public static final String INBOX_APPLIED = "inboxApplied";
    /** Property: the CONSUMER span of an inbox message (tracing). */
    public static final String INBOX_SPAN = "inboxSpan";
    /** Property: the PRODUCER spans of the send under way (tracing). */
    public static final String SEND_SPANS = "outboxSendSpans";
    /** Property: an event sent alone keeps its writer's trace context across redeliveries (tracing). */
    public static final String TRACE_PARENT = "outboxTraceParent";

    private ExchangeNames() {
    }
}
