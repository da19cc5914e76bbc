package io.outboxrelay.settings;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The relay's settings as read at startup: application.properties' defaults, overrides, and every check's message. */
class RelaySettingsTest {

    /** The shipped defaults: what a relay started with no configuration reads. */
    static final Properties DEFAULTS = applicationProperties();

    /** The components a plain relay has; "ftp" is a well-formed scheme with no component. */
    private static final Set<String> COMPONENTS = Set.of("kafka", "jms", "mock");

    @Test
    void theShippedDefaultsAreValidAndEachLandsInItsField() {
        RelaySettings s = read(Map.of());

        assertEquals(text("outbox.db.url"), s.dbUrl());
        assertEquals(text("outbox.db.user"), s.dbUser());
        assertEquals("", s.dbPassword(), "an empty password is allowed");
        assertEquals(integer("outbox.db.pool-size"), s.dbPoolSize());
        assertEquals(TableName.parse("outbox.table", text("outbox.table")), s.table());
        assertEquals(Boolean.parseBoolean(text("outbox.schema.migrate")), s.schemaMigrate());
        assertEquals(text("outbox.endpoint"), s.endpoint());
        assertEquals(text("outbox.endpoint").substring(0, text("outbox.endpoint").indexOf(':')), s.endpointScheme());
        assertEquals(text("outbox.jms.broker-url"), s.jmsBrokerUrl());
        assertEquals(text("outbox.source"), s.source());
        assertEquals(integer("outbox.batch-size"), s.batchSize());
        assertEquals(integer("outbox.concurrent-claims"), s.concurrentClaims());
        assertEquals(integer("outbox.poll-delay-ms"), s.pollDelayMs());
        assertEquals("sequence", text("outbox.wake-up"), "the writers pay nothing by default (contract §2)");
        assertEquals(RelaySettings.WakeUp.SEQUENCE, s.wakeUp());
        assertEquals("", text("outbox.wake-up.min-interval-ms"), "the database's default");
        assertEquals(5, s.wakeUpMinIntervalMs(), "a look every 5 ms while events arrive, on PostgreSQL");
        assertEquals(integer("outbox.wake-up.max-interval-ms"), s.wakeUpMaxIntervalMs());
        assertEquals(duration("outbox.lease"), s.lease());
        assertEquals(integer("outbox.partitions"), s.partitions());
        assertEquals(duration("outbox.instance.heartbeat"), s.instanceHeartbeat());
        assertEquals(2_000, s.heartbeatMillis(), "the heartbeat timer's period");
        assertEquals(duration("outbox.instance.stale-after"), s.instanceStaleAfter());
        assertEquals(integer("outbox.max-attempts"), s.maxAttempts());
        assertEquals(integer("outbox.redelivery.maximum-redeliveries"), s.redeliveryMaximumRedeliveries());
        assertEquals(integer("outbox.redelivery.delay-ms"), s.redeliveryDelayMs());
        assertEquals(Double.parseDouble(text("outbox.redelivery.backoff-multiplier")), s.redeliveryBackoffMultiplier());
        assertEquals(duration("outbox.backoff.initial"), s.backoffInitial());
        assertEquals(duration("outbox.backoff.max"), s.backoffMax());
        assertEquals(Boolean.parseBoolean(text("outbox.failed-blocks-key")), s.failedBlocksKey());
        assertEquals(duration("outbox.retention"), s.retention());
        assertEquals(integer("outbox.retention.interval-ms"), s.retentionIntervalMs());
        assertEquals(integer("outbox.retention.batch-size"), s.retentionBatchSize());
        assertEquals(RelaySettings.RetentionMode.DELETE, s.retentionMode());
        assertEquals(null, s.archiveRetention(), "archived rows are kept forever by default");
        assertEquals("", s.archiveRetentionInterval());
        assertEquals(integer("outbox.metrics.refresh-ms"), s.metricsRefreshMs());
        assertEquals(integer("outbox.health.probe-interval-ms"), s.healthProbeIntervalMs());
        assertEquals(text("outbox.routes-dir"), s.routesDir());
        assertEquals("", s.schemasDir(), "no event schemas unless asked for");
        assertEquals("schemas", read(Map.of("outbox.schemas-dir", " schemas ")).schemasDir());
    }

    @Test
    void overridesWinAndAreTrimmed() {
        RelaySettings s = read(Map.of("outbox.batch-size", " 500 ", "outbox.failed-blocks-key", "TRUE",
                "outbox.table", "app.events", "outbox.endpoint", "jms:queue:orders"));

        assertEquals(500, s.batchSize());
        assertTrue(s.failedBlocksKey(), "true/false in any case");
        assertEquals("app", s.table().schema());
        assertEquals("jms", s.endpointScheme());
    }

    @Test
    void durationsAreBoundToTheSqlAsIsoIntervals() {
        RelaySettings s = read(Map.of("outbox.backoff.initial", "PT2S", "outbox.backoff.max", "PT1M",
                "outbox.retention", "P3D", "outbox.lease", "PT45S", "outbox.instance.stale-after", "PT20S"));

        assertEquals("PT2S", s.backoffInitialInterval());
        assertEquals("PT1M", s.backoffMaxInterval());
        assertEquals("PT72H", s.retentionInterval(), "Duration has no days: PostgreSQL reads hours as well");
        assertEquals("PT45S", s.leaseInterval());
        assertEquals("PT20S", s.staleAfterInterval());
    }

    @Test
    void anUnnamedInstanceIsNamedAfterItsHostAndProcessWithASuffixOfItsOwn() {
        String pid = Long.toString(ManagementFactory.getRuntimeMXBean().getPid());
        String id = read(Map.of()).instanceId();

        assertTrue(id.matches(".+-" + pid + "-[0-9a-f]{8}"), id);
    }

    @Test
    void archiveModeAndAnArchiveRetention() {
        RelaySettings s = read(Map.of("outbox.retention.mode", " archive ", "outbox.archive.retention", "P90D"));

        assertTrue(s.archiveMode());
        assertEquals(Duration.ofDays(90), s.archiveRetention());
        assertEquals("PT2160H", s.archiveRetentionInterval(), "as PostgreSQL reads it: an interval");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "sequence      | SEQUENCE",
            "claim-index   | CLAIM_INDEX",
            "notify        | NOTIFY",
            "' notify '    | NOTIFY",
    })
    void eachWakeUpIsReadIntoItsConstant(String value, RelaySettings.WakeUp expected) {
        assertEquals(expected, read(Map.of("outbox.wake-up", value)).wakeUp());
    }

    @Test
    void theWakeUpsShortestPauseMayBeFromOneMillisecondToOneSecond() {
        assertEquals(1, read(Map.of("outbox.wake-up.min-interval-ms", "1")).wakeUpMinIntervalMs());
        assertEquals(1_000, read(Map.of("outbox.wake-up.min-interval-ms", " 1000 ")).wakeUpMinIntervalMs());
    }

    @Test
    void theWakeUpsLongestPauseMayBeFromOneMillisecondToTenSeconds() {
        assertEquals(1, read(Map.of("outbox.wake-up.max-interval-ms", "1")).wakeUpMaxIntervalMs());
        assertEquals(10_000, read(Map.of("outbox.wake-up.max-interval-ms", " 10000 ")).wakeUpMaxIntervalMs());
    }

    @Test
    void aNamedInstanceKeepsItsNameAndEachLifeGetsANewSuffix() {
        String first = read(Map.of("outbox.instance-id", "relay-a")).instanceId();
        String second = read(Map.of("outbox.instance-id", "relay-a")).instanceId();

        assertTrue(first.matches("relay-a-[0-9a-f]{8}"), first);
        assertNotEquals(first, second, "a restarted relay is a new owner");
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "outbox.endpoint                        | no scheme here     | known scheme",
            "outbox.endpoint                        | ftp:host/dir       | known scheme",
            "outbox.endpoint                        | Kafka:topic        | known scheme",
            "outbox.db.url                          | jdbc:mysql://db/x  | MySQL is untested",
            "outbox.db.url                          | jdbc:oracle:thin:@db:1521/x | or a jdbc:mariadb: URL",
            "outbox.db.pool-size                    | 3                  | from 4 to 100",
            "outbox.db.pool-size                    | 101                | from 4 to 100",
            "outbox.table                           | outbox; drop table x | [schema.]table",
            "outbox.table                           | a.b.c              | [schema.]table",
            "outbox.schema.migrate                  | yes                | true or false",
            "outbox.batch-size                      | 0                  | from 1 to 10000",
            "outbox.batch-size                      | 10001              | from 1 to 10000",
            "outbox.batch-size                      | ten                | from 1 to 10000",
            "outbox.batch-size                      | 2.5                | from 1 to 10000",
            "outbox.concurrent-claims               | 65                 | from 1 to 64",
            "outbox.poll-delay-ms                   | 0                  | from 1 to 3600000",
            "outbox.wake-up                         | listen             | one of sequence, claim-index, notify",
            "outbox.wake-up                         | Notify             | one of sequence, claim-index, notify",
            "outbox.wake-up                         | claim_index        | one of sequence, claim-index, notify",
            "outbox.wake-up                         | poll               | one of sequence, claim-index, notify",
            "outbox.wake-up.min-interval-ms         | 0                  | from 1 to 1000",
            "outbox.wake-up.min-interval-ms         | 1001               | from 1 to 1000",
            "outbox.wake-up.min-interval-ms         | 2ms                | from 1 to 1000",
            "outbox.wake-up.max-interval-ms         | 0                  | from 1 to 10000",
            "outbox.wake-up.max-interval-ms         | 10001              | from 1 to 10000",
            "outbox.wake-up.max-interval-ms         | 25ms               | from 1 to 10000",
            "outbox.partitions                      | 4097               | from 1 to 4096",
            "outbox.lease                           | 30s                | ISO-8601 duration",
            "outbox.lease                           | PT0S               | ISO-8601 duration",
            "outbox.instance.heartbeat              | -PT5S              | ISO-8601 duration",
            "outbox.instance.stale-after            | 30                 | ISO-8601 duration",
            "outbox.max-attempts                    | 0                  | from 1 to 1000",
            "outbox.redelivery.maximum-redeliveries | -1                 | from 0 to 100",
            "outbox.redelivery.maximum-redeliveries | 101                | from 0 to 100",
            "outbox.redelivery.delay-ms             | 600001             | from 0 to 600000",
            "outbox.redelivery.backoff-multiplier   | 0.5                | from 1.0 to 100.0",
            "outbox.redelivery.backoff-multiplier   | twice              | from 1.0 to 100.0",
            "outbox.backoff.initial                 | 5 seconds          | ISO-8601 duration",
            "outbox.backoff.max                     | forever            | ISO-8601 duration",
            "outbox.failed-blocks-key               | 1                  | true or false",
            "outbox.retention                       | P0D                | ISO-8601 duration",
            "outbox.retention.interval-ms           | 999                | from 1000 to 2147483647",
            "outbox.retention.batch-size            | 0                  | from 1 to 1000000",
            "outbox.retention.mode                  | move               | one of delete, archive",
            "outbox.retention.mode                  | Archive            | one of delete, archive",
            "outbox.archive.retention               | 90 days            | ISO-8601 duration",
            "outbox.archive.retention               | P3M                | ISO-8601 duration",
            "outbox.metrics.refresh-ms              | 99                 | from 100 to 3600000",
            "outbox.health.probe-interval-ms        | 600001             | from 100 to 600000",
            "outbox.instance-id                     | relay a            | letters, digits",
            "outbox.instance-id                     | relay/a            | letters, digits",
    })
    void aBadValueIsRefusedNamingItsKey(String key, String value, String expectation) {
        InvalidSettingException e = assertThrows(InvalidSettingException.class, () -> read(Map.of(key, value)));

        assertEquals(key, e.key());
        assertTrue(e.getMessage().startsWith("invalid setting " + key + "='" + value + "': "), e.getMessage());
        assertTrue(e.getMessage().contains(expectation), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource({"outbox.endpoint", "outbox.db.url", "outbox.db.user", "outbox.table", "outbox.source",
            "outbox.jms.broker-url", "camel.component.kafka.brokers", "outbox.routes-dir", "outbox.batch-size",
            "outbox.lease", "outbox.failed-blocks-key", "outbox.wake-up", "outbox.wake-up.max-interval-ms"})
    void aBlankValueIsRefusedNamingItsKey(String key) {
        for (String blank : new String[] {"", "   "}) {
            Map<String, String> overrides = new HashMap<>();
            overrides.put(key, blank);
            InvalidSettingException e = assertThrows(InvalidSettingException.class, () -> read(overrides));
            assertEquals(key, e.key());
            assertTrue(e.getMessage().contains("must not be empty"), e.getMessage());
        }
    }

    /** The catalogue is the source of defaults: a relay given no configuration at all reads the shipped defaults. */
    @Test
    void aSettingNoSourceGivesHasTheCataloguesDefault() {
        RelaySettings bare = RelaySettings.read(key -> Optional.empty(), COMPONENTS::contains);
        RelaySettings shipped = read(Map.of());
        assertEquals(shipped.dbUrl(), bare.dbUrl());
        assertEquals(shipped.endpoint(), bare.endpoint());
        assertEquals(shipped.batchSize(), bare.batchSize());
        assertEquals(shipped.lease(), bare.lease());
        assertEquals(RelaySettings.WakeUp.SEQUENCE, bare.wakeUp());
        assertEquals(RelaySettings.RetentionMode.DELETE, bare.retentionMode());
        assertEquals(shipped.redeliveryBackoffMultiplier(), bare.redeliveryBackoffMultiplier());
    }

    /**
     * RelaySettings is built by name: each component is filled by the setting its name is made from, and each setting
     * the relay holds has its component. Fails on a component no setting fills (or a misnamed one) and on a setting of
     * the relay's that no component holds.
     */
    @Test
    void everyComponentIsFilledByTheSettingItIsNamedAfterAndEverySettingHasItsComponent() {
        List<String> components = Arrays.stream(RelaySettings.class.getRecordComponents())
                .map(RecordComponent::getName).toList();
        for (String component : components) {
            Setting setting = SettingsByName.named(component);
            assertTrue(RelaySettings.SETTINGS.contains(setting), component + " is filled by " + setting.key()
                    + ", not a setting of the relay's");
        }
        assertEquals(new TreeSet<>(components), RelaySettings.SETTINGS.stream().map(Setting::componentName)
                .collect(Collectors.toCollection(TreeSet::new)), "one component per setting of the relay's");
        assertEquals("dbPoolSize", SettingsCatalogue.DB_POOL_SIZE.componentName());
        assertEquals("instanceHeartbeat", SettingsCatalogue.HEARTBEAT.componentName());
        assertEquals("inboxTable", SettingsCatalogue.INBOX_TABLE.componentName());
    }

    /** The inbox's, the console's and the operator commands' settings are built by name too, from the catalogue. */
    @Test
    void theOtherSettingsRecordsAreBuiltByNameToo() {
        for (Class<?> type : List.of(InboxSettings.class, ConsoleSettings.class, OperatorSettings.class)) {
            for (RecordComponent component : type.getRecordComponents()) {
                assertEquals(component.getName(), SettingsByName.named(component.getName()).componentName(),
                        type.getSimpleName());
            }
        }
        InboxSettings inbox = InboxSettings.read(key -> Optional.ofNullable(Map.of("inbox.table", "app.inbox",
                "inbox.schema.migrate", "false", "inbox.retention", "P2D").get(key)));
        assertEquals("app.inbox", inbox.inboxTable().qualified());
        assertFalse(inbox.inboxSchemaMigrate());
        assertEquals(Duration.ofDays(2), inbox.inboxRetention());
        ConsoleSettings console = ConsoleSettings.read(key -> Optional.ofNullable(Map.of(
                "outbox.console.viewers", "viewers.htpasswd", "outbox.console.operators", "").get(key)));
        assertEquals("viewers.htpasswd", console.consoleViewers());
        assertTrue(console.enabled());
    }

    /** outbox.wake-up.min-interval-ms left empty takes its database's default; a value given is taken as given. */
    @Test
    void theWakeUpIntervalsDefaultIsTheDatabases() {
        String mariadb = "jdbc:mariadb://127.0.0.1:3306/shop";
        assertEquals(10, read(Map.of("outbox.db.url", mariadb)).wakeUpMinIntervalMs());
        assertEquals(5, read(Map.of("outbox.db.url", "jdbc:postgresql://db/shop")).wakeUpMinIntervalMs());
        assertEquals(5, read(Map.of("outbox.db.url", mariadb, "outbox.wake-up.min-interval-ms", "5"))
                .wakeUpMinIntervalMs());
        assertEquals(10, read(Map.of("outbox.db.url", mariadb, "outbox.wake-up.min-interval-ms", " "))
                .wakeUpMinIntervalMs());
    }

    /** Two settings of one type swapped in the record would still compile: each value must land in its own field. */
    @Test
    void eachValueLandsInTheComponentOfItsKey() {
        RelaySettings s = read(Map.of("outbox.wake-up.min-interval-ms", "7", "outbox.wake-up.max-interval-ms", "70",
                "outbox.lease", "PT30S", "outbox.instance.stale-after", "PT20S", "outbox.instance.heartbeat", "PT5S",
                "outbox.retention.interval-ms", "60000", "outbox.metrics.refresh-ms", "6000",
                "outbox.health.probe-interval-ms", "600"));
        assertEquals(7, s.wakeUpMinIntervalMs());
        assertEquals(70, s.wakeUpMaxIntervalMs());
        assertEquals(Duration.ofSeconds(30), s.lease());
        assertEquals(Duration.ofSeconds(20), s.instanceStaleAfter());
        assertEquals(Duration.ofSeconds(5), s.instanceHeartbeat());
        assertEquals(5_000, s.heartbeatMillis());
        assertEquals(60_000, s.retentionIntervalMs());
        assertEquals(6_000, s.metricsRefreshMs());
        assertEquals(600, s.healthProbeIntervalMs());
    }

    @Test
    void aChoiceIsReadAsItsEnumConstant() {
        assertEquals(RelaySettings.WakeUp.CLAIM_INDEX, read(Map.of("outbox.wake-up", "claim-index")).wakeUp());
        assertEquals(RelaySettings.WakeUp.NOTIFY, read(Map.of("outbox.wake-up", "notify")).wakeUp());
        assertEquals(RelaySettings.RetentionMode.ARCHIVE, read(Map.of("outbox.retention.mode", "archive"))
                .retentionMode());
    }

    @Test
    void thePoolHasRoomForEveryClaimBesidesTheWatchTheHeartbeatAndTheJanitors() {
        InvalidSettingException e = assertThrows(InvalidSettingException.class,
                () -> read(Map.of("outbox.db.pool-size", "8", "outbox.concurrent-claims", "6")));
        assertEquals("outbox.db.pool-size", e.key());
        assertTrue(e.getMessage().contains("more than outbox.concurrent-claims + 2 (8)"), e.getMessage());
        assertEquals(9, read(Map.of("outbox.db.pool-size", "9", "outbox.concurrent-claims", "6")).dbPoolSize(),
                "one more is enough");
    }

    @Test
    void aMissingPasswordOrInstanceIdIsNotAnError() {
        Map<String, String> overrides = new HashMap<>();
        overrides.put("outbox.db.password", null);
        overrides.put("outbox.instance-id", null);

        RelaySettings s = read(overrides);

        assertEquals("", s.dbPassword());
        assertFalse(s.instanceId().isEmpty());
    }

    @Test
    void anInstanceIdOfHundredCharactersIsTheLongestAccepted() {
        assertTrue(read(Map.of("outbox.instance-id", "r".repeat(100))).instanceId().startsWith("r".repeat(100)));
        InvalidSettingException e = assertThrows(InvalidSettingException.class,
                () -> read(Map.of("outbox.instance-id", "r".repeat(101))));
        assertEquals("outbox.instance-id", e.key());
    }

    @Test
    void aLeaseMustOutliveThreeHeartbeats() {
        InvalidSettingException e = assertThrows(InvalidSettingException.class,
                () -> read(Map.of("outbox.instance.heartbeat", "PT3S", "outbox.lease", "PT8S")));

        assertEquals("outbox.lease", e.key());
        assertTrue(e.getMessage().contains("3 x outbox.instance.heartbeat (PT3S)"), e.getMessage());
        assertEquals(Duration.ofSeconds(9),
                read(Map.of("outbox.instance.heartbeat", "PT3S", "outbox.lease", "PT9S")).lease(), "3 x is enough");
    }

    @Test
    void anInstanceIsStaleAfterTwoHeartbeatsAtTheEarliest() {
        InvalidSettingException e = assertThrows(InvalidSettingException.class,
                () -> read(Map.of("outbox.instance.heartbeat", "PT2S", "outbox.instance.stale-after", "PT3S")));

        assertEquals("outbox.instance.stale-after", e.key());
        assertEquals(Duration.ofSeconds(4), read(Map.of("outbox.instance.heartbeat", "PT2S",
                "outbox.instance.stale-after", "PT4S")).instanceStaleAfter(), "2 x is enough");
    }

    @Test
    void theLongestBackoffMayNotBeShorterThanTheFirst() {
        InvalidSettingException e = assertThrows(InvalidSettingException.class,
                () -> read(Map.of("outbox.backoff.initial", "PT1M", "outbox.backoff.max", "PT30S")));

        assertEquals("outbox.backoff.max", e.key());
        assertTrue(e.getMessage().contains("outbox.backoff.initial (PT1M)"), e.getMessage());
        RelaySettings equal = read(Map.of("outbox.backoff.initial", "PT1M", "outbox.backoff.max", "PT1M"));
        assertEquals(equal.backoffInitial(), equal.backoffMax(), "a constant backoff is allowed");
    }

    @Test
    void toStringNeverShowsThePassword() {
        RelaySettings s = read(Map.of("outbox.db.password", "s3cr3t-pw"));

        assertEquals("s3cr3t-pw", s.dbPassword());
        assertFalse(s.toString().contains("s3cr3t-pw"), s.toString());
    }

    // --- helpers

    /** Reads the settings as the relay does: an override, else the shipped default; null means absent. */
    static RelaySettings read(Map<String, String> overrides) {
        return RelaySettings.read(key -> Optional.ofNullable(
                overrides.containsKey(key) ? overrides.get(key) : DEFAULTS.getProperty(key)), COMPONENTS::contains);
    }

    private static String text(String key) {
        String value = DEFAULTS.getProperty(key);
        assertNotNull(value, "application.properties has no " + key);
        return value.trim();
    }

    private static int integer(String key) {
        return Integer.parseInt(text(key));
    }

    private static Duration duration(String key) {
        return Duration.parse(text(key));
    }

    static Properties applicationProperties() {
        Properties properties = new Properties();
        try (InputStream in = RelaySettingsTest.class.getClassLoader().getResourceAsStream("application.properties")) {
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return properties;
    }
}
