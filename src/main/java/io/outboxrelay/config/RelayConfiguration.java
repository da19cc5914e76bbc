package io.outboxrelay.config;

import java.time.Clock;
import java.util.concurrent.CompletableFuture;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.outboxrelay.claim.ClaimBeans;
import io.outboxrelay.claim.PartitionGrants;
import io.outboxrelay.console.ConsoleBeans;
import io.outboxrelay.event.EventSchemas;
import io.outboxrelay.event.OutboxEvent;
import io.outboxrelay.failure.FailureBeans;
import io.outboxrelay.health.HealthBeans;
import io.outboxrelay.inbox.InboxBeans;
import io.outboxrelay.metrics.MetricsBeans;
import io.outboxrelay.metrics.RelayMetrics;
import io.outboxrelay.publish.BrokerConnections;
import io.outboxrelay.publish.BrokerProbe;
import io.outboxrelay.publish.CloudEventsMapper;
import io.outboxrelay.publish.KafkaAdmin;
import io.outboxrelay.publish.PublishBeans;
import io.outboxrelay.schema.SchemaMigration;
import io.outboxrelay.settings.ConsoleSettings;
import io.outboxrelay.settings.Database;
import io.outboxrelay.settings.InboxSettings;
import io.outboxrelay.settings.RelaySettings;
import io.outboxrelay.sql.JsonArrayParameters;
import io.outboxrelay.sql.OutboxSql;
import io.outboxrelay.tracing.TracingBeans;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.component.micrometer.MicrometerConstants;
import org.apache.camel.component.sql.SqlComponent;
import org.apache.camel.spi.Registry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's composition root: the validated settings, the event schemas, the pooled data source, the outbox's
 * migrations, the metrics registry and the resolved SQL statements; each package's beans through its binder
 * (BrokerConnections, PublishBeans, HealthBeans, ClaimBeans, TracingBeans, InboxBeans), the ones the route tests use.
 * Camel K and other runtimes that start Camel themselves name it in {@code camel.main.configuration-classes}; the
 * jar's own main runs it earlier ({@link RelayMainListener}).
 */
public class RelayConfiguration implements CamelConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(RelayConfiguration.class);

    @Override
    public void configure(CamelContext context) {
        RelaySettings settings = NormalisedProperties.apply(context);
        InboxSettings inboxSettings = NormalisedProperties.applyInbox(context);
        // read and checked before anything starts: a bad schema file is bad configuration
        EventSchemas schemas = EventSchemas.load(settings.schemasDir());
        if (schemas != EventSchemas.NONE) {
            LOG.info("Event schemas: {} from {}; events of other types are not checked", schemas.size(),
                    settings.schemasDir());
        }

        Registry registry = context.getRegistry();
        registry.bind("relaySettings", settings);
        registry.bind("inboxSettings", inboxSettings);

        DataSource dataSource = dataSource(settings);
        registry.bind("outboxDataSource", dataSource);
        // every sql: endpoint of the routes, and of an inbox handler's steps (which join its transaction), uses it
        context.getComponent("sql", SqlComponent.class).setDataSource(dataSource);
        SchemaMigration schema = new SchemaMigration(dataSource, settings.database(), settings.dbUrl(),
                settings.table(), settings.partitions(), settings.schemaMigrate());
        registry.bind("schemaMigration", schema);
        // migrates as the context starts when the database is up; otherwise the heartbeat route keeps trying
        addService(context, schema);

        KafkaAdmin kafkaAdmin = new KafkaAdmin(context);
        addService(context, kafkaAdmin);
        if ("kafka".equals(settings.endpointScheme())) {
            // the Kafka client's classes and its first connection, loaded beside Camel's start instead of before the
            // first event is sent (the first send asks the cluster for its topic's size limit)
            CompletableFuture.runAsync(kafkaAdmin::problem);
        }
        BrokerProbe brokerProbe = BrokerConnections.bind(context, settings, kafkaAdmin);
        // publish: event to message (checked against its schema), parts by destination, the size check, the outage
        PublishBeans.bind(context, settings.endpoint(), new CloudEventsMapper(settings.source(),
                "kafka".equals(settings.endpointScheme()), schemas), kafkaAdmin, brokerProbe, Clock.systemUTC());
        HealthBeans.bind(context, settings, brokerProbe, schema, service -> addService(context, service));

        RelayMetrics relayMetrics = MetricsBeans.bind(context, meterRegistry(registry));
        OutboxSql.bind(context, settings.database());
        registry.bind("outboxEventRows", new OutboxEvent.Rows());

        // claim: the partitions granted to claims (the heartbeat's state), inserts waking the claims, leaving on stop
        PartitionGrants grants = ClaimBeans.bindGrants(context, settings, relayMetrics::owned);
        ClaimBeans.watch(context, settings, dataSource, grants, service -> addService(context, service),
                endpoint -> wake(context, endpoint));

        // tracing (OpenTelemetry's environment, or its agent): a span per publish attempt and per inbox message
        TracingBeans.bind(context, settings.endpointScheme());

        // failure: the record-failure route's steps
        FailureBeans.bind(context, relayMetrics);

        // the inbox (routes/inbox.camel.yaml): its table and its transaction
        InboxBeans.bind(context, dataSource, settings.database(), inboxSettings);

        // the operator console (routes/console.camel.yaml), when its users are configured
        ConsoleBeans.bind(context, ConsoleSettings.read(context.getPropertiesComponent()::resolveProperty),
                dataSource, settings.database(), settings.table(), settings.failedBlocksKey(),
                java.time.Duration.ofMillis(settings.metricsRefreshMs()));
    }

    /** A wake-up of the claim routes (direct:outbox-wake or direct:outbox-look), once the routes run. */
    private static Runnable wake(CamelContext context, String endpoint) {
        ProducerTemplate template = context.createProducerTemplate();
        return () -> {
            if (context.isStarted()) {
                try {
                    template.sendBody(endpoint, null);
                } catch (RuntimeException e) {
                    // stopping: the claims are over
                }
            }
        };
    }

    private static void addService(CamelContext context, Object service) {
        try {
            // stopped with the context
            context.addService(service, true, true);
        } catch (Exception e) {
            throw new IllegalStateException("cannot start " + service, e);
        }
    }

    /** The registry camel-micrometer-prometheus scrapes at /observe/metrics (it may have bound it already). */
    private static MeterRegistry meterRegistry(Registry registry) {
        MeterRegistry existing = registry.lookupByNameAndType(MicrometerConstants.METRICS_REGISTRY_NAME,
                MeterRegistry.class);
        if (existing != null) {
            return existing;
        }
        PrometheusMeterRegistry created = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.bind(MicrometerConstants.METRICS_REGISTRY_NAME, created);
        return created;
    }

    static DataSource dataSource(RelaySettings settings) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("outbox");
        config.setJdbcUrl(settings.dbUrl());
        config.setUsername(settings.dbUser());
        config.setPassword(settings.dbPassword());
        config.setMaximumPoolSize(settings.dbPoolSize());
        // Start even when the database is down: the routes retry and readiness reports DOWN until it answers.
        config.setInitializationFailTimeout(-1);
        // fail fast while the database is down, so health checks and polls report it instead of hanging
        config.setConnectionTimeout(5_000);
        if (settings.database() == Database.MARIADB) {
            // InnoDB's default REPEATABLE READ makes the claim's locking read take next-key locks up to the end of the
            // pending rows, which block the writers' INSERTs until the claim ends; READ COMMITTED locks the rows
            // read only. The session in UTC, and the driver reading timestamps in it: created_at is the instant the
            // writer's session wrote, whatever the relay's or the server's time zone.
            config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
            config.addDataSourceProperty("connectionTimeZone", "UTC");
            config.addDataSourceProperty("forceConnectionTimeZoneToSession", "true");
            // no arrays on MariaDB: its statements read list parameters as JSON text
            return new JsonArrayParameters(new HikariDataSource(config));
        }
        // The claim's row estimates are high enough to trigger PostgreSQL's JIT, which then compiles for ~30 ms on
        // every claim that itself takes 40-70 ms; the relay's statements are short OLTP statements that never gain.
        config.addDataSourceProperty("options", "-c jit=off");
        return new HikariDataSource(config);
    }
}
