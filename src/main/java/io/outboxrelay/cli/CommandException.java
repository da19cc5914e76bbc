package io.outboxrelay.cli;

/** Ends a command with an exit code and one line for stderr (without the "outbox-relay: " prefix). */
final class CommandException extends Exception {

    private final int exitCode;

    CommandException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    /** Bad usage: exit 2. */
    static CommandException usage(String message) {
        return new CommandException(OperatorCommands.EXIT_BAD_USAGE, message);
    }

    int exitCode() {
        return exitCode;
    }
}
