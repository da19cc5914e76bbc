package io.outboxrelay.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A command's options: {@code --flag}, {@code --option value} or {@code --option=value}. Anything else (an unknown
 * option, a stray word, a missing value, a flag with a value) is bad usage, reported before anything else happens.
 */
final class Arguments {

    private final String command;
    private final Map<String, List<String>> values;

    private Arguments(String command, Map<String, List<String>> values) {
        this.command = command;
        this.values = values;
    }

    /**
     * @param flags options without a value, e.g. --json
     * @param options options with a value, e.g. --limit
     */
    static Arguments parse(String command, List<String> tokens, Set<String> flags, Set<String> options)
            throws CommandException {
        Map<String, List<String>> values = new LinkedHashMap<>();
        for (int i = 0; i < tokens.size(); i++) {
            String token = tokens.get(i);
            if (!token.startsWith("--")) {
                throw CommandException.usage(command + ": unexpected argument '" + token + "'");
            }
            int equals = token.indexOf('=');
            String name = equals < 0 ? token : token.substring(0, equals);
            String value;
            if (name.equals("--help") || flags.contains(name)) {
                if (equals >= 0) {
                    throw CommandException.usage(command + ": " + name + " takes no value");
                }
                value = "";
            } else if (options.contains(name)) {
                if (equals >= 0) {
                    value = token.substring(equals + 1);
                } else if (i + 1 < tokens.size() && !tokens.get(i + 1).startsWith("--")) {
                    value = tokens.get(++i);
                } else {
                    throw CommandException.usage(command + ": " + name + " needs a value");
                }
            } else {
                throw CommandException.usage(command + ": unknown option " + name);
            }
            values.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
        }
        return new Arguments(command, values);
    }

    String command() {
        return command;
    }

    boolean has(String name) {
        return values.containsKey(name);
    }

    /** Every value of a repeatable option, in order. */
    List<String> all(String name) {
        return values.getOrDefault(name, List.of());
    }

    /** The value of an option given at most once. */
    Optional<String> single(String name) throws CommandException {
        List<String> given = all(name);
        if (given.size() > 1) {
            throw CommandException.usage(command + ": " + name + " given more than once");
        }
        return given.stream().findFirst();
    }

    int integer(String name, int defaultValue, int min, int max) throws CommandException {
        Optional<String> value = single(name);
        if (value.isEmpty()) {
            return defaultValue;
        }
        try {
            int parsed = Integer.parseInt(value.get());
            if (parsed >= min && parsed <= max) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw CommandException.usage(command + ": " + name + " '" + value.get() + "': expected an integer from "
                + min + " to " + max);
    }
}
