package io.outboxrelay.demo;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The quick start's --db and --database: the database it names, and one line for a bad value. */
class QuickStartOptionsTest {

    @Test
    void dbChoosesTheLocalServer() {
        assertEquals("jdbc:postgresql://127.0.0.1:5432/outbox_demo",
                QuickStart.database(QuickStart.options()).url());
        assertEquals("jdbc:mariadb://127.0.0.1:3306/shop_demo",
                QuickStart.database(QuickStart.options("--db", "mariadb", "--database", "shop_demo")).url());
    }

    @Test
    void anUnknownDbIsOneLineNamingTheOption() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> QuickStart.database(QuickStart.options("--db", "oracle")));
        assertEquals("--db: expected postgresql or mariadb, got oracle", e.getMessage());
    }

    @Test
    void aDatabaseNameThatIsNoIdentifierIsOneLineNamingTheOption() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> QuickStart.database(QuickStart.options("--db", "mariadb", "--database", "demo; DROP")));
        assertEquals("--database: expected a lower-case identifier, got demo; DROP", e.getMessage());
    }
}
