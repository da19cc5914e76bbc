package io.outboxrelay.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.Architectures;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The packages import downward only. From the bottom: the model and the plain helpers (event, settings, sql); the
 * steps of an event's path (claim, publish, failure), metrics, the schema, health, the consumer's inbox and tracing;
 * the composition (config); the entry point and the operator's command line. A change that makes a lower package
 * reach up fails here, naming the classes.
 */
class PackageLayersTest {

    private static JavaClasses relay;

    @BeforeAll
    static void importRelayClasses() {
        relay = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.outboxrelay");
    }

    @Test
    void packagesHaveNoCycles() {
        slices().matching("io.outboxrelay.(*)..").should().beFreeOfCycles().check(relay);
    }

    @Test
    void eachPackageImportsOnlyTheLayersBelowIt() {
        Architectures.layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("entry point").definedBy("io.outboxrelay")
                .layer("command line").definedBy("io.outboxrelay.cli..")
                .layer("composition").definedBy("io.outboxrelay.config..")
                .layer("health").definedBy("io.outboxrelay.health..")
                .layer("failure").definedBy("io.outboxrelay.failure..")
                .layer("claim").definedBy("io.outboxrelay.claim..")
                .layer("publish").definedBy("io.outboxrelay.publish..")
                .layer("metrics").definedBy("io.outboxrelay.metrics..")
                .layer("schema").definedBy("io.outboxrelay.schema..")
                .layer("inbox").definedBy("io.outboxrelay.inbox..")
                .layer("tracing").definedBy("io.outboxrelay.tracing..")
                .layer("console").definedBy("io.outboxrelay.console..")
                .layer("replay").definedBy("io.outboxrelay.replay..")
                .layer("model").definedBy("io.outboxrelay.event..", "io.outboxrelay.settings..",
                        "io.outboxrelay.sql..")

                .whereLayer("entry point").mayNotBeAccessedByAnyLayer()
                .whereLayer("command line").mayOnlyBeAccessedByLayers("entry point")
                .whereLayer("composition").mayOnlyBeAccessedByLayers("entry point")
                .whereLayer("health").mayOnlyBeAccessedByLayers("composition")
                .whereLayer("failure").mayOnlyBeAccessedByLayers("composition")
                .whereLayer("claim").mayOnlyBeAccessedByLayers("composition")
                .whereLayer("publish").mayOnlyBeAccessedByLayers("composition", "failure", "health", "tracing")
                .whereLayer("metrics").mayOnlyBeAccessedByLayers("composition", "failure")
                .whereLayer("schema").mayOnlyBeAccessedByLayers("composition", "health")
                .whereLayer("inbox").mayOnlyBeAccessedByLayers("composition")
                .whereLayer("tracing").mayOnlyBeAccessedByLayers("composition")
                .whereLayer("console").mayOnlyBeAccessedByLayers("composition")
                .whereLayer("replay").mayOnlyBeAccessedByLayers("command line", "console")
                .check(relay);
    }
}
