package io.outboxrelay.publish;

/** A row that can never become a message (e.g. headers that are not an object of strings): retrying cannot help. */
public class UnpublishableEventException extends RuntimeException {

    public UnpublishableEventException(String message) {
        super(message);
    }
}
