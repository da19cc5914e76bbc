package io.outboxrelay.config;

import java.time.Clock;
import java.time.Duration;
import java.util.function.Supplier;

import javax.sql.DataSource;

import jakarta.jms.ConnectionFactory;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.outboxrelay.claim.OutboxComponent;
import io.outboxrelay.health.BackgroundHealthCheck;
import io.outboxrelay.health.BrokerHealthCheck;
import io.outboxrelay.health.DatabaseHealthCheck;
import io.outboxrelay.metrics.RelayMetrics;
import io.outboxrelay.publish.BrokerOutage;
import io.outboxrelay.publish.BrokerProbe;
import io.outboxrelay.publish.KafkaAdmin;
import io.outboxrelay.publish.TopicSizedBatches;
import io.outboxrelay.publish.OutboxEventMapper;
import io.outboxrelay.schema.SchemaMigration;
import io.outboxrelay.sql.OutboxSql;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.apache.camel.CamelContext;
import org.apache.camel.component.micrometer.MicrometerConstants;
import org.apache.camel.main.BaseMainSupport;
import org.apache.camel.main.MainListenerSupport;
import org.apache.camel.spi.PropertiesComponent;
import org.apache.camel.spi.Registry;
import org.apache.camel.util.function.Suppliers;
import org.springframework.jms.connection.CachingConnectionFactory;

/**
 * Validates the settings, migrates the schema, then binds what the routes refer to by name: the pooled data source,
 * the resolved SQL statements, the JMS connection factory, the batch publisher, the metrics registry, the
 * database health check and the small beans of the publish and failure steps.
 */
public class RelayConfiguration extends MainListenerSupport {

    /**
     * Runs before Camel's own configuration: YAML routes (also the user's, in outbox.routes-dir) are pre-parsed early
     * and their {@code beans:} may refer to the relay's beans, e.g. #outboxDataSource.
     */
    @Override
    public void beforeConfigure(BaseMainSupport main) {
        configure(main.getCamelContext());
    }

    void configure(CamelContext context) {
        PropertiesComponent properties = context.getPropertiesComponent();
        RelaySettings settings = RelaySettings.read(properties::resolveProperty,
                scheme -> context.getComponent(scheme) != null);
        normaliseSqlProperties(properties, settings);

        Registry registry = context.getRegistry();
        registry.bind("relaySettings", settings);

        DataSource dataSource = dataSource(settings);
        registry.bind("outboxDataSource", dataSource);
        SchemaMigration schema = new SchemaMigration(dataSource, settings.table(), settings.partitions(),
                settings.migrate());
        // migrate now when the database is up; otherwise the claim gate keeps trying
        schema.isReady();

        // Made on first use: loading the Artemis client takes a fifth of a second of the start, and most relays
        // publish to Kafka. Spring's caching factory keeps one connection and session per producer instead of one per
        // message.
        Supplier<ActiveMQConnectionFactory> jms = Suppliers.memorize(
                () -> new ActiveMQConnectionFactory(settings.jmsBrokerUrl()));
        registry.bind("jmsConnectionFactory", ConnectionFactory.class, () -> new CachingConnectionFactory(jms.get()));

        KafkaAdmin kafkaAdmin = new KafkaAdmin(context);
        addService(context, kafkaAdmin);
        // each topic's producer batches no more than the topic accepts: a rejected event fails alone
        context.getCamelContextExtension().registerEndpointCallback(new TopicSizedBatches(kafkaAdmin));
        BrokerProbe brokerProbe = BrokerProbe.forScheme(settings.endpointScheme(), kafkaAdmin, jms);
        BrokerOutage brokerOutage = new BrokerOutage(brokerProbe, Clock.systemUTC());
        registry.bind("brokerOutage", brokerOutage);
        Duration probeInterval = Duration.ofMillis(settings.healthProbeIntervalMs());
        addHealthCheck(context, "brokerHealthCheck", new BrokerHealthCheck(brokerProbe, probeInterval));
        addHealthCheck(context, "databaseHealthCheck", new DatabaseHealthCheck(settings.dbUrl(), settings.dbUser(),
                settings.dbPassword(), schema, probeInterval));

        RelayMetrics relayMetrics = new RelayMetrics(meterRegistry(registry));
        registry.bind("relayMetrics", relayMetrics);

        OutboxSql.bind(context);
        context.addComponent("outbox", new OutboxComponent(ClaimingFactory.forRelay(context, settings, dataSource,
                schema, brokerOutage, relayMetrics, pipelined(properties, settings), drainTimeout(properties))));
        registry.bind("outboxEventMapper",
                new OutboxEventMapper(settings.source(), "kafka".equals(settings.endpointScheme())));
    }

    /**
     * Whether a key's next event may be sent before the previous one is acknowledged: only with a Kafka producer
     * that keeps each partition's records in send order (idempotent: its retries never reorder them).
     */
    private static boolean pipelined(PropertiesComponent properties, RelaySettings settings) {
        // read from the properties: Camel applies them to the component only after this configuration runs
        String idempotence = properties.resolveProperty("camel.component.kafka.enable-idempotence")
                .or(() -> properties.resolveProperty("camel.component.kafka.enableIdempotence")).orElse("true");
        return "kafka".equals(settings.endpointScheme()) && Boolean.parseBoolean(idempotence.trim());
    }

    /** A stopping relay waits this long for its events in flight: inside Camel's own shutdown timeout. */
    private static Duration drainTimeout(PropertiesComponent properties) {
        int shutdownSeconds = Integer.parseInt(properties.resolveProperty("camel.main.shutdown-timeout").orElse("45"));
        return Duration.ofSeconds(Math.max(1, shutdownSeconds - 5));
    }

    /**
     * The SQL statements splice some settings into their text ({{outbox.table}}, {{outbox.batch-size}}, ...): give
     * them the validated, normalised value rather than the raw text, so what was checked is what runs.
     */
    private static void normaliseSqlProperties(PropertiesComponent properties, RelaySettings settings) {
        ClaimingFactory.sqlValues(settings).forEach(properties::addOverrideProperty);
    }

    /** Found by Camel's health registry in the bean registry; probes in the background while the context runs. */
    private static void addHealthCheck(CamelContext context, String name, BackgroundHealthCheck check) {
        check.setCamelContext(context);
        context.getRegistry().bind(name, check);
        addService(context, check);
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
        MeterRegistry existing = registry.lookupByNameAndType(MicrometerConstants.METRICS_REGISTRY_NAME, MeterRegistry.class);
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
        // The claim's row estimates are high enough to trigger PostgreSQL's JIT, which then compiles for ~30 ms on
        // every claim that itself takes 40-70 ms; the relay's statements are short OLTP statements that never gain.
        config.addDataSourceProperty("options", "-c jit=off");
        return new HikariDataSource(config);
    }
}
