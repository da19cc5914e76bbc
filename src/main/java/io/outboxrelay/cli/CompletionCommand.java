package io.outboxrelay.cli;

import java.util.concurrent.Callable;

import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code completion} command: picocli's bash completion script for the commands and their options. It completes
 * the command outbox-relay, an alias the operator makes for the jar: the top command's name, "java -jar
 * outbox-relay.jar", is no word a shell completes.
 */
@Command(name = "completion", description = {"Prints a bash completion script for the command outbox-relay.",
    "Make that the jar with an alias, then load the script:",
    "  alias outbox-relay='java -jar outbox-relay.jar'",
    "  source <(outbox-relay completion)"})
final class CompletionCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;


    @Override
    public Integer call() {
        spec.commandLine().getOut().print(AutoComplete.bash("outbox-relay", spec.root().commandLine()));
        spec.commandLine().getOut().flush();
        return OperatorCommands.EXIT_OK;
    }
}
