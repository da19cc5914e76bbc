package io.outboxrelay.event;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The names an exchange carries are defined once, in {@link ExchangeNames}: every outbox/inbox property or header
 * name the routes, the Kamelets and the SQL spell is one of its constants, and no two constants hold one name.
 */
class ExchangeNamesTest {

    /** ${exchangeProperty.X}, name: X (setProperty, removeProperty), :#X and :#${header.X} (SQL parameters). */
    private static final Pattern USE = Pattern.compile(
            "exchangeProperty\\.((?:outbox|inbox)[A-Za-z]+)|name: ((?:outbox|inbox)[A-Z][A-Za-z]+)"
                    + "|:#((?:outbox|inbox)[A-Z][A-Za-z]+)|header\\.((?:outbox|inbox)[A-Z][A-Za-z]+)");

    @Test
    void everyNameTheRoutesAndTheSqlSpellIsDefinedOnce() throws Exception {
        Set<String> defined = defined();
        Set<String> used = used();
        assertTrue(defined.containsAll(used), "not in ExchangeNames: "
                + used.stream().filter(n -> !defined.contains(n)).toList());
        assertEquals(constantValues().size(), defined.size(), "a name defined twice");
    }

    @Test
    void theScanFindsTheNamesItShould() throws Exception {
        Set<String> used = used();
        assertTrue(used.containsAll(List.of("outboxBatch", "outboxGrant", "outboxEventId", "outboxError",
                "inboxConsumer")), used.toString());
    }

    private static Set<String> used() throws IOException {
        List<Path> files = new ArrayList<>();
        for (String dir : List.of("src/main/resources/routes", "src/main/resources/sql/postgresql",
                "src/main/resources/sql/mariadb", "deploy/camel-k/kamelets", "examples")) {
            try (Stream<Path> listed = Files.list(Path.of(dir))) {
                listed.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".sql")).forEach(files::add);
            }
        }
        Set<String> names = new TreeSet<>();
        for (Path file : files) {
            Matcher m = USE.matcher(Files.readString(file));
            while (m.find()) {
                for (int g = 1; g <= m.groupCount(); g++) {
                    if (m.group(g) != null) {
                        names.add(m.group(g));
                    }
                }
            }
        }
        return names;
    }

    private static Set<String> defined() throws IllegalAccessException {
        return new TreeSet<>(constantValues());
    }

    private static List<String> constantValues() throws IllegalAccessException {
        List<String> values = new ArrayList<>();
        for (Field field : ExchangeNames.class.getDeclaredFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                values.add((String) field.get(null));
            }
        }
        return values;
    }
}
