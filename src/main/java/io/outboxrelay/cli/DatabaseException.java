package io.outboxrelay.cli;

/**
 * The database cannot be reached or a statement failed, told as an operator needs it: the command ends with exit code
 * 1 and this message as its one line on stderr (after the "outbox-relay: " prefix).
 */
final class DatabaseException extends Exception {

    DatabaseException(String message) {
        super(message);
    }
}
