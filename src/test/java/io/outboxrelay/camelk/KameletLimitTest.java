package io.outboxrelay.camelk;

import java.lang.reflect.Field;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;

import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.kamelet.KameletComponent;
import org.apache.camel.dsl.yaml.KameletRoutesBuilderLoader;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.model.RouteTemplateDefinition;
import org.apache.camel.support.ResourceHelper;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Camel limit that makes the outbox Kamelet a bean installing the relay's routes (config.KameletRelay's first
 * comment): a Kamelet is one route template, and a route template holds one route. Fails when Camel lifts it, so the
 * Kamelet can hold the relay's path itself. Its consequence, one outbox source per context, is refused in one line.
 */
class KameletLimitTest {

    private static final String KAMELET = "kamelets/postgresql-outbox-source.kamelet.yaml";

    @Test
    void aRouteTemplateHoldsOneRoute() throws Exception {
        List<String> routeFields = Arrays.stream(RouteTemplateDefinition.class.getDeclaredFields())
                .filter(KameletLimitTest::holdsRoutes).map(Field::getName).toList();

        assertEquals(List.of("route"), routeFields, "one field holds the template's route(s)");
        assertEquals(RouteDefinition.class, RouteTemplateDefinition.class.getDeclaredField("route").getType(),
                "one RouteDefinition, not a list of them");
    }

    @Test
    void aKameletIsOneRouteTemplate() throws Exception {
        try (DefaultCamelContext context = new DefaultCamelContext();
                KameletRoutesBuilderLoader loader = new KameletRoutesBuilderLoader()) {
            loader.setCamelContext(context);
            loader.start();
            String outbox = Files.readString(CamelKManifests.DIRECTORY.resolve(KAMELET));
            context.addRoutes(loader.loadRoutesBuilder(ResourceHelper.fromString(
                    "postgresql-outbox-source.kamelet.yaml", outbox)));
            assertEquals(List.of("postgresql-outbox-source"), context.getRouteTemplateDefinitions().stream()
                    .map(RouteTemplateDefinition::getId).toList());

            // the relay's path as two routes of one Kamelet: refused, a template is one mapping
            String twoRoutes = outbox.substring(0, outbox.indexOf("  template:")) + """
                      template:
                        - from:
                            uri: direct:outbox-claim
                            steps:
                              - to: kamelet:sink
                        - from:
                            uri: direct:outbox-mark
                            steps:
                              - to: log:mark
                    """;
            RuntimeException refused = assertThrows(RuntimeException.class, () -> context.addRoutes(
                    loader.loadRoutesBuilder(ResourceHelper.fromString("two-routes.kamelet.yaml", twoRoutes))));
            assertTrue(refused.getMessage().startsWith("Unsupported type: SEQUENCE"), refused.getMessage());
        }
    }

    /** No database needed: the second source's bean is refused while the routes are created, before any install. */
    @Test
    void aSecondOutboxSourceInOneContextIsRefusedAtStartInOneLine() throws Exception {
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            context.getComponent("kamelet", KameletComponent.class)
                    .setLocation("file:" + CamelKManifests.DIRECTORY.resolve("kamelets"));
            RuntimeException e = assertThrows(RuntimeException.class, () -> {
                context.addRoutes(new RouteBuilder() {
                    @Override
                    public void configure() {
                        for (String table : List.of("orders", "invoices")) {
                            from("kamelet:postgresql-outbox-source?databaseUrl=jdbc:postgresql://127.0.0.1:1/none"
                                    + "&username=app&table=" + table).routeId(table).to("direct:" + table);
                        }
                    }
                });
                context.start();
            });
            Throwable cause = e;
            while (cause.getCause() != null) {
                cause = cause.getCause();
            }
            assertEquals("a second postgresql-outbox-source in one Camel context: the relay's routes have fixed ids "
                    + "and a Kamelet is one route template holding one route (Camel 4.18), so each outbox source needs "
                    + "an Integration or Pipe of its own", cause.getMessage());
        }
    }

    /** A field holding a route, or routes. */
    private static boolean holdsRoutes(Field field) {
        return RouteDefinition.class.isAssignableFrom(field.getType())
                || field.getGenericType() instanceof ParameterizedType generic && Arrays.stream(
                        generic.getActualTypeArguments()).map(Type::getTypeName)
                        .anyMatch(name -> name.contains(RouteDefinition.class.getName()));
    }
}
