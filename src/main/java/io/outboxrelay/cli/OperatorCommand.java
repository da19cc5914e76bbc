package io.outboxrelay.cli;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.SQLException;

import io.outboxrelay.settings.OperatorSettings;

/** One operator command, its arguments already checked; runs on one connection and returns the exit code. */
interface OperatorCommand {

    int run(Connection connection, OperatorSettings settings, PrintStream out, PrintStream err)
            throws SQLException, CommandException;
}
