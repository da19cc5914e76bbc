package io.outboxrelay.settings;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The database holding the outbox, told by the scheme of outbox.db.url: nothing else selects it. Each has its own SQL
 * (sql/&lt;dialect&gt;/) and migrations (db/migration/&lt;dialect&gt;/); the routes are the same.
 */
public enum Database {
    POSTGRESQL,
    MARIADB;

    /** The oldest MariaDB the outbox table can live on: the UUID type came with 10.7 (SKIP LOCKED with 10.6). */
    static final int MARIADB_OLDEST_MAJOR = 10;
    static final int MARIADB_OLDEST_MINOR = 7;
    private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+).*");

    /** The folder name of its SQL and migrations. */
    public String dialect() {
        return name().toLowerCase();
    }

    /** @throws InvalidSettingException naming the key, for a URL of a database the relay does not run on */
    public static Database of(String key, String url) {
        if (url.startsWith("jdbc:postgresql:")) {
            return POSTGRESQL;
        }
        if (url.startsWith("jdbc:mariadb:")) {
            return MARIADB;
        }
        if (url.startsWith("jdbc:mysql:")) {
            throw new InvalidSettingException(key, url,
                    "MySQL is untested; for MariaDB 10.11+ use a jdbc:mariadb: URL");
        }
        throw new InvalidSettingException(key, url,
                "expected a jdbc:postgresql: URL (PostgreSQL 12+) or a jdbc:mariadb: URL (MariaDB 10.11+)");
    }

    /** Refuses, in one line, the settings this database does not support (yet). */
    void checkSupported(RelaySettings settings) {
        if (this != MARIADB) {
            return;
        }
        if (settings.wakeUp() == RelaySettings.WakeUp.NOTIFY) {
            throw new InvalidSettingException(SettingsCatalogue.WAKE_UP.key(), "notify",
                    "LISTEN/NOTIFY is PostgreSQL's; on MariaDB use sequence (the default)");
        }
    }

    /**
     * Checks the server the relay connected to, by the version its driver reports (e.g. "10.11.19-MariaDB-0+deb12u1").
     *
     * @throws InvalidSettingException naming the key, for a MariaDB older than 10.7
     */
    public void checkServerVersion(String key, String url, String version) {
        if (this != MARIADB) {
            return;
        }
        Matcher m = VERSION.matcher(version);
        if (m.matches()) {
            int major = Integer.parseInt(m.group(1));
            int minor = Integer.parseInt(m.group(2));
            if (major > MARIADB_OLDEST_MAJOR || major == MARIADB_OLDEST_MAJOR && minor >= MARIADB_OLDEST_MINOR) {
                return;
            }
        }
        throw new InvalidSettingException(key, url, "MariaDB " + version + " is too old: the outbox needs MariaDB "
                + MARIADB_OLDEST_MAJOR + "." + MARIADB_OLDEST_MINOR + "+ (UUID type, SKIP LOCKED), tested on 10.11");
    }
}
