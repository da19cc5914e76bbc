package io.outboxrelay.event;

import com.networknt.schema.Error;

/**
 * One reason a payload is invalid against its event schema ({@link EventSchemas}).
 *
 * @param pointer the JSON pointer (RFC 6901) of the failing value, "" for the payload itself
 */
public record Violation(String pointer, String message) {

    static Violation of(Error error) {
        return new Violation(error.getInstanceLocation().toString(), error.getMessage());
    }

    /** "/total: string found, number expected"; the payload itself is "(root)". */
    public static String describe(String pointer, String message) {
        return (pointer.isEmpty() ? "(root)" : pointer) + ": " + message;
    }

    @Override
    public String toString() {
        return describe(pointer, message);
    }
}
