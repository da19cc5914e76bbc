package io.outboxrelay.publish;

/**
 * A payload its event type's schema (outbox.schemas-dir) rejects: never published, and FAILED at once like any
 * unpublishable row, since the same payload would fail every attempt. The message names the schema file and the
 * failing JSON pointers.
 */
public class SchemaViolationException extends UnpublishableEventException {

    public SchemaViolationException(String message) {
        super(message);
    }
}
