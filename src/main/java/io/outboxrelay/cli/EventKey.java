package io.outboxrelay.cli;

import java.util.Optional;

/**
 * An event's key, the ordering scope: (aggregate_type, aggregate_id). Given as {@code --key TYPE/ID} (split at the
 * first '/', so the id may contain more) or as {@code --aggregate-type T --aggregate-id I} (for a type with a '/').
 */
record EventKey(String aggregateType, String aggregateId) {

    static final String KEY = "--key";
    static final String TYPE = "--aggregate-type";
    static final String ID = "--aggregate-id";

    /** The key the arguments select, if any. */
    static Optional<EventKey> from(Arguments arguments) throws CommandException {
        Optional<String> key = arguments.single(KEY);
        Optional<String> type = arguments.single(TYPE);
        Optional<String> id = arguments.single(ID);
        String command = arguments.command();
        if (key.isPresent()) {
            if (type.isPresent() || id.isPresent()) {
                throw CommandException.usage(command + ": give " + KEY + " or " + TYPE + " with " + ID + ", not both");
            }
            int slash = key.get().indexOf('/');
            if (slash <= 0 || slash == key.get().length() - 1) {
                throw CommandException.usage(command + ": " + KEY + " '" + key.get()
                        + "': expected AGGREGATE_TYPE/AGGREGATE_ID, e.g. order/order-42");
            }
            return Optional.of(new EventKey(key.get().substring(0, slash), key.get().substring(slash + 1)));
        }
        if (type.isPresent() != id.isPresent()) {
            throw CommandException.usage(command + ": " + TYPE + " and " + ID + " go together");
        }
        if (type.isPresent()) {
            if (type.get().isEmpty() || id.get().isEmpty()) {
                throw CommandException.usage(command + ": " + TYPE + " and " + ID + " must not be empty");
            }
            return Optional.of(new EventKey(type.get(), id.get()));
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return aggregateType + "/" + aggregateId;
    }
}
