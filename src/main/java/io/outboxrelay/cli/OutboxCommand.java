package io.outboxrelay.cli;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Callable;

import io.outboxrelay.settings.OperatorSettings;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * A command on the outbox table. picocli has parsed and checked its options; only then are the relay's settings read
 * (so bad usage is reported before a bad setting) and one connection opened, on which the command runs.
 */
abstract class OutboxCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;


    @ParentCommand
    OperatorCommands operatorCommands;

    @Override
    public final Integer call() throws DatabaseException {
        OperatorSettings settings = OperatorSettings.read(operatorCommands.settings);
        try (Connection connection = OutboxDatabase.connect(settings)) {
            return run(connection, settings, spec.commandLine().getOut(), spec.commandLine().getErr());
        } catch (SQLException e) {
            throw OutboxDatabase.failure(e, settings);
        }
    }

    /** @return the exit code */
    abstract int run(Connection connection, OperatorSettings settings, PrintWriter out, PrintWriter err)
            throws SQLException;
}
