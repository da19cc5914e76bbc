package io.outboxrelay.support;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import io.outboxrelay.settings.Database;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The databases a guarantee test runs on. The suite runs each case as its test lists it (chosen by risk and time);
 * {@code -Dtest.database=MARIADB} (or POSTGRESQL, or both comma-separated) runs every case of these tests on that
 * database instead, so a test left to PostgreSQL in the suite can be run on MariaDB by anyone. For
 * {@code @MethodSource("io.outboxrelay.support.TestDatabases#both")} and the like.
 */
public final class TestDatabases {

    /** The system property (the pom passes Maven's -Dtest.database on to the test JVMs). */
    public static final String PROPERTY = "test.database";

    private TestDatabases() {
    }

    /** PostgreSQL and MariaDB. */
    public static Stream<Database> both() {
        return cases(Arguments.of(Database.POSTGRESQL), Arguments.of(Database.MARIADB)).map(a -> (Database) a.get()[0]);
    }

    /** PostgreSQL in the suite (the MariaDB case left out for time), MariaDB with -Dtest.database=MARIADB. */
    public static Stream<Database> postgresql() {
        return cases(Arguments.of(Database.POSTGRESQL)).map(a -> (Database) a.get()[0]);
    }

    /**
     * One case on PostgreSQL per variant (the test's second argument, e.g. a transport), as {@link #cases} lists them:
     * MariaDB too only with -Dtest.database.
     */
    public static Stream<Arguments> postgresqlWith(Object... variants) {
        return cases(Stream.of(variants).map(variant -> Arguments.of(Database.POSTGRESQL, variant))
                .toArray(Arguments[]::new));
    }

    /**
     * The given cases, each a {@link Database} then the test's other arguments; with -Dtest.database each case runs on
     * the databases it names instead (a case listed for both then runs once per database named).
     */
    public static Stream<Arguments> cases(Arguments... cases) {
        return cases(System.getProperty(PROPERTY, ""), cases);
    }

    static Stream<Arguments> cases(String setting, Arguments... cases) {
        List<Database> chosen = chosen(setting);
        if (chosen.isEmpty()) {
            return Stream.of(cases);
        }
        Set<List<Object>> distinct = new LinkedHashSet<>();
        for (Arguments c : cases) {
            Object[] arguments = c.get();
            for (Database database : chosen) {
                Object[] onChosen = arguments.clone();
                onChosen[0] = database;
                distinct.add(Arrays.asList(onChosen));
            }
        }
        return distinct.stream().map(arguments -> Arguments.of(arguments.toArray()));
    }

    /** The databases -Dtest.database names, none when it is not set. */
    private static List<Database> chosen(String setting) {
        String value = setting.trim();
        if (value.isEmpty()) {
            return List.of();
        }
        return Arrays.stream(value.split(",")).map(String::trim).map(name -> {
            try {
                return Database.valueOf(name.toUpperCase());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("-D" + PROPERTY + ": expected POSTGRESQL, MARIADB or both "
                        + "comma-separated, got " + value);
            }
        }).distinct().toList();
    }
}
