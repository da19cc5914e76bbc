package io.outboxrelay.cli;

import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * An event's key, the ordering scope: (aggregate_type, aggregate_id). Given as {@code --key TYPE/ID} (split at the
 * first '/', so the id may contain more) or as {@code --aggregate-type T --aggregate-id I} (for a type with a '/').
 */
record EventKey(String aggregateType, String aggregateId) {

    /** TYPE/ID, e.g. order/order-42: the value of --key. */
    static EventKey parse(String key) {
        int slash = key.indexOf('/');
        if (slash <= 0 || slash == key.length() - 1) {
            throw new TypeConversionException("'" + key + "' is not AGGREGATE_TYPE/AGGREGATE_ID, e.g. order/order-42");
        }
        return new EventKey(key.substring(0, slash), key.substring(slash + 1));
    }

    @Override
    public String toString() {
        return aggregateType + "/" + aggregateId;
    }

    /** The options that select one key: an exclusive group, the key in one option or in two. */
    static final class Options {

        @Option(names = "--key", paramLabel = "TYPE/ID", required = true,
                description = "The events of one key, AGGREGATE_TYPE/AGGREGATE_ID (split at the first '/').")
        EventKey key;

        @ArgGroup(exclusive = false, multiplicity = "1")
        Parts parts;

        EventKey key() {
            return key != null ? key : new EventKey(parts.aggregateType, parts.aggregateId);
        }
    }

    /** The key in two options, for an aggregate type with a '/': both or neither. */
    static final class Parts {

        @Option(names = "--aggregate-type", paramLabel = "T", required = true, converter = NotEmpty.class,
                description = "The key's aggregate type, with --aggregate-id.")
        String aggregateType;

        @Option(names = "--aggregate-id", paramLabel = "I", required = true, converter = NotEmpty.class,
                description = "The key's aggregate id, with --aggregate-type.")
        String aggregateId;
    }

    /** An empty part would select no event; it is a typo (an unset shell variable), reported as bad usage. */
    static final class NotEmpty implements ITypeConverter<String> {

        @Override
        public String convert(String value) {
            if (value.isEmpty()) {
                throw new TypeConversionException("must not be empty");
            }
            return value;
        }
    }
}
