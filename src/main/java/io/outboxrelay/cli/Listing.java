package io.outboxrelay.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The options of the commands that list rows (a picocli mixin): {@code --json}, and {@code --limit N}, at most N
 * rows, the oldest.
 */
final class Listing {

    static final int DEFAULT = 50;
    static final int MAX = 100_000;

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    private int rows = DEFAULT;

    @Option(names = "--json", description = "One JSON document on one line instead of the text (whole values).")
    private boolean json;

    /** A setter: picocli converts the number, this checks its range, both reported as bad usage. */
    @Option(names = "--limit", paramLabel = "N", defaultValue = "" + DEFAULT,
            description = "Lists at most N rows, the oldest (1 to " + MAX + ", default ${DEFAULT-VALUE}).")
    void set(int limit) {
        if (limit < 1 || limit > MAX) {
            throw new ParameterException(command.commandLine(),
                    "--limit '" + limit + "': expected an integer from 1 to " + MAX);
        }
        rows = limit;
    }

    int rows() {
        return rows;
    }

    boolean json() {
        return json;
    }
}
