package io.outboxrelay.cli;

import picocli.CommandLine.Option;

/** The {@code -h}/{@code --help} of every command (a picocli mixin): picocli prints the command's usage. */
final class HelpOption {

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Shows this help.")
    boolean help;
}
