package io.outboxrelay.config;

import java.time.Clock;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.outboxrelay.claim.ClaimGate;
import io.outboxrelay.claim.ClaimScheduler;
import io.outboxrelay.claim.InsertListener;
import io.outboxrelay.claim.LeaseRelease;
import io.outboxrelay.failure.FailureDescription;
import io.outboxrelay.health.BrokerHealthCheck;
import io.outboxrelay.health.DatabaseHealthCheck;
import io.outboxrelay.metrics.RelayMetrics;
import io.outboxrelay.publish.BrokerOutage;
import io.outboxrelay.publish.BrokerProbe;
import io.outboxrelay.publish.OutboxEventMapper;
import io.outboxrelay.publish.BatchPublisher;
import io.outboxrelay.schema.SchemaMigration;
import io.outboxrelay.sql.OutboxSql;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.apache.camel.CamelContext;
import org.apache.camel.component.micrometer.MicrometerConstants;
import org.apache.camel.main.BaseMainSupport;
import org.apache.camel.main.MainListenerSupport;
import org.apache.camel.spi.PropertiesComponent;
import org.apache.camel.spi.Registry;
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
        SchemaMigration schema = new SchemaMigration(dataSource, settings.table(), settings.migrate());
        // migrate now when the database is up; otherwise the claim gate keeps trying
        schema.isReady();

        ActiveMQConnectionFactory jms = new ActiveMQConnectionFactory(settings.jmsBrokerUrl());
        // Spring's caching factory keeps one connection and session per producer instead of one per message.
        registry.bind("jmsConnectionFactory", new CachingConnectionFactory(jms));

        BrokerOutage brokerOutage = new BrokerOutage(
                BrokerProbe.forScheme(settings.endpointScheme(), context, jms), Clock.systemUTC());
        registry.bind("brokerOutage", brokerOutage);
        registry.bind("claimGate", new ClaimGate(schema, brokerOutage));
        ClaimScheduler claimScheduler = new ClaimScheduler(settings.pollDelayMs(), settings.claimBatchesInFlight());
        registry.bind("claimScheduler", claimScheduler);
        addService(context, new InsertListener(dataSource, settings.table(), claimScheduler::wakeUp));
        registry.bind("brokerHealthCheck", new BrokerHealthCheck(brokerOutage));

        RelayMetrics relayMetrics = new RelayMetrics(meterRegistry(registry));
        registry.bind("relayMetrics", relayMetrics);
        registry.bind("databaseHealthCheck", new DatabaseHealthCheck(dataSource, schema));

        OutboxSql.bind(context);
        registry.bind("leaseRelease", new LeaseRelease(dataSource, OutboxSql.resolved(context, "release-leases")));
        OutboxEventMapper mapper = new OutboxEventMapper(settings.source(), "kafka".equals(settings.endpointScheme()));
        registry.bind("outboxEventMapper", mapper);
        BatchPublisher batchPublisher = new BatchPublisher(context, "direct:outbox-publish", settings.endpoint(), mapper,
                relayMetrics, brokerOutage, settings.lease());
        registry.bind("batchPublisher", batchPublisher);
        // stopped with the context: its producer template and hand-over threads
        addService(context, batchPublisher);
        registry.bind("failureDescription", new FailureDescription());
    }

    /**
     * The SQL statements splice some settings into their text ({{outbox.table}}, {{outbox.batch-size}}, ...): give
     * them the validated, normalised value rather than the raw text, so what was checked is what runs.
     */
    private static void normaliseSqlProperties(PropertiesComponent properties, RelaySettings settings) {
        properties.addOverrideProperty("outbox.table", settings.table().qualified());
        properties.addOverrideProperty("outbox.batch-size", Integer.toString(settings.batchSize()));
        properties.addOverrideProperty("outbox.claim.run-length", Integer.toString(settings.claimRunLength()));
        properties.addOverrideProperty("outbox.lease", settings.lease().toString());
        properties.addOverrideProperty("outbox.max-attempts", Integer.toString(settings.maxAttempts()));
        properties.addOverrideProperty("outbox.backoff.initial", settings.backoffInitial().toString());
        properties.addOverrideProperty("outbox.backoff.max", settings.backoffMax().toString());
        properties.addOverrideProperty("outbox.failed-blocks-key", Boolean.toString(settings.failedBlocksKey()));
        properties.addOverrideProperty("outbox.retention", settings.retention().toString());
        properties.addOverrideProperty("outbox.retention.batch-size", Integer.toString(settings.retentionBatchSize()));
        properties.addOverrideProperty("outbox.instance-id", settings.instanceId());
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

    private static DataSource dataSource(RelaySettings settings) {
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
