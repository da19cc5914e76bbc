package io.outboxrelay.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.outboxrelay.claim.ClaimBeans;
import io.outboxrelay.claim.PartitionGrants;
import io.outboxrelay.claim.PartitionOwnership;
import io.outboxrelay.event.EventSchemas;
import io.outboxrelay.event.OutboxEvent;
import io.outboxrelay.failure.FailureBeans;
import io.outboxrelay.metrics.MetricsBeans;
import io.outboxrelay.metrics.RelayMetrics;
import io.outboxrelay.publish.BrokerOutage;
import io.outboxrelay.publish.CloudEventsMapper;
import io.outboxrelay.publish.KafkaAdmin;
import io.outboxrelay.publish.PublishBeans;
import io.outboxrelay.settings.RelaySettings;
import org.apache.camel.Message;
import org.apache.camel.builder.AdviceWith;
import org.apache.camel.spi.Registry;
import org.apache.camel.spi.Resource;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.ResourceHelper;
import org.apache.camel.test.junit5.CamelContextConfiguration;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.apache.camel.test.junit5.TestExecutionConfiguration;

/**
 * The relay's real YAML routes in a Camel test context, without a database or a broker: outbox.endpoint is a mock
 * endpoint per aggregate type (mock:outbox.event.TYPE), the SQL steps are advised into mock endpoints, and the beans
 * the routes call are the relay's own classes, made by the binders config.RelayConfiguration uses (PublishBeans,
 * ClaimBeans), except the broker probe (the test says whether the broker answers), the clock (fixed: a probe's answer
 * lasts the whole test) and Kafka's admin client (none: nothing may be asked, unless a test gives its own).
 * No DataSource is bound: a route step that reached the database would fail (the sql component has none).
 */
public abstract class RelayRoutesTestSupport extends CamelTestSupport {

    /** Where order events go (outbox.endpoint evaluated with ce_aggregatetype=order). */
    protected static final String ORDERS = "mock:outbox.event.order";
    /** The claim's SQL step (sql/claim.sql), advised by {@link #adviseClaimRoutes()}. */
    protected static final String CLAIM = "mock:claim";
    /** The mark's SQL step (sql/mark.sql), advised by {@link #adviseClaimRoutes()}. */
    protected static final String MARK = "mock:mark";
    /** The route files of the claim's path: its routes (publishing included) and the failure configuration. */
    protected static final List<String> CLAIM_PATH_ROUTES = List.of("failure.camel.yaml", "claim.camel.yaml");
    /** The record-failure route's SQL step (sql/record-failure.sql), advised. */
    protected static final String RECORD_FAILURE = "mock:record-failure";

    protected final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    /** What the broker probe answers: null while the broker answers, else why not. */
    protected volatile String brokerProblem;
    protected final AtomicInteger probes = new AtomicInteger();
    /** Events turned into messages by the routes' cloudEventsMapper. */
    protected final AtomicInteger mapped = new AtomicInteger();

    protected BrokerOutage brokerOutage;
    protected PartitionGrants partitionGrants;

    /** The route files under src/main/resources/routes/ this test runs. */
    protected abstract List<String> routeFiles();

    /**
     * The claim routes as a route test runs them: the claim and mark SQL steps into {@link #CLAIM} and {@link #MARK},
     * the same claim queue and consumers without a seda consumer's first poll timeout (1 s by default, a second more
     * per test), and no safety-net poll adding claims on its own schedule.
     */
    protected void adviseClaimRoutes() throws Exception {
        AdviceWith.adviceWith(context, "outbox-claim", route -> route.replaceFromWith(
                context.resolvePropertyPlaceholders("seda:outbox-claims?size={{outbox.concurrent-claims}}"
                        + "&concurrentConsumers={{outbox.concurrent-claims}}&pollTimeout=20")));
        AdviceWith.adviceWith(context, "outbox-claim-events",
                route -> route.weaveById("claim-events").replace().to(CLAIM));
        AdviceWith.adviceWith(context, "outbox-mark", route -> route.weaveById("mark-published").replace().to(MARK));
        AdviceWith.adviceWith(context, "outbox-poll", route -> route.replaceFromWith("direct:outbox-poll"));
    }

    /** This instance owns partition 0 (as a heartbeat's answer would say). */
    protected void ownPartitionZero() {
        PartitionOwnership ownership = context.getRegistry().lookupByNameAndType("partitionOwnership",
                PartitionOwnership.class);
        ownership.startHeartbeat();
        partitionGrants.heartbeatParameters();
        ownership.heartbeat(List.of(Map.of("partition_number", 0, "taken", true, "giving_up", false,
                "live_instances", 1)));
    }

    /** What the relay asks Kafka (topic limits): by default nothing may be asked. */
    protected KafkaAdmin kafkaAdmin() {
        return new NoKafka();
    }

    /** Replaces what else would reach the database or wait on a timer. */
    protected void advise() throws Exception {
    }

    /** application.properties with the test's endpoint and fast redeliveries. */
    protected Properties properties() {
        Properties properties = new Properties();
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("application.properties")) {
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        properties.setProperty("outbox.endpoint", "mock:outbox.event.${header.ce_aggregatetype}");
        // not the default (3): the count seen must come from the setting
        properties.setProperty("outbox.redelivery.maximum-redeliveries", "2");
        properties.setProperty("outbox.redelivery.delay-ms", "1");
        return properties;
    }

    @Override
    public void configureTest(TestExecutionConfiguration configuration) {
        super.configureTest(configuration);
        // the routes are advised before the context starts (doPostSetup starts it)
        configuration.withUseAdviceWith(true);
    }

    @Override
    public void configureContext(CamelContextConfiguration configuration) {
        super.configureContext(configuration);
        configuration.withUseOverridePropertiesWithPropertiesComponent(properties());
    }

    @Override
    protected void doPostSetup() throws Exception {
        bindRelayBeans(context.getRegistry());
        List<Resource> routes = new ArrayList<>();
        for (String file : routeFiles()) {
            routes.add(ResourceHelper.resolveMandatoryResource(context, "classpath:routes/" + file));
        }
        PluginHelper.getRoutesLoader(context).loadRoutes(routes.toArray(new Resource[0]));
        AdviceWith.adviceWith(context, "outbox-record-failure",
                route -> route.weaveById("record-failure").replace().to(RECORD_FAILURE));
        advise();
        context.start();
        // what sql/record-failure.sql returns: the row's status afterwards
        getMockEndpoint(RECORD_FAILURE).whenAnyExchangeReceived(exchange -> exchange.getMessage().setBody("PENDING"));
    }

    private void bindRelayBeans(Registry registry) {
        // the relay's own settings from the test's properties, validated as the relay validates them
        RelaySettings settings = RelaySettings.read(key -> context.getPropertiesComponent().resolveProperty(key),
                scheme -> true);
        RelayMetrics metrics = MetricsBeans.bind(context, meters);
        // the same binders as config.RelayConfiguration's; the probe, the clock and Kafka's admin are the test's
        PublishBeans.bind(context, settings.endpoint(), new CountingMapper(settings.source(), mapped, eventSchemas()),
                kafkaAdmin(), () -> {
                    probes.incrementAndGet();
                    return brokerProblem;
                }, Clock.fixed(Instant.parse("2024-01-01T00:00:00Z"), ZoneOffset.UTC));
        brokerOutage = registry.lookupByNameAndType("brokerOutage", BrokerOutage.class);
        partitionGrants = ClaimBeans.bindGrants(context, settings, metrics::owned);
        FailureBeans.bind(context, metrics);
    }

    // --- helpers for the tests

    /** The event schemas of the mapper (outbox.schemas-dir): none unless a test class gives some. */
    protected EventSchemas eventSchemas() {
        return EventSchemas.NONE;
    }

    protected static OutboxEvent event(String id, String aggregateId) {
        return new OutboxEvent(id, 1, 0, "order", aggregateId, "OrderPlaced", "{\"id\":\"" + id + "\"}", null,
                Instant.parse("2024-01-01T00:00:00Z"), 0);
    }

    protected static OutboxEvent.Batch batch(OutboxEvent... events) {
        return OutboxEvent.Batch.of(List.of(events));
    }

    protected double count(String meter) {
        return meters.counter(meter).count();
    }

    /** The relay's mapper, counting the events it maps (a redelivered mapping step maps again). */
    public static final class CountingMapper extends CloudEventsMapper {

        private final AtomicInteger mapped;

        CountingMapper(String source, AtomicInteger mapped, EventSchemas schemas) {
            super(source, true, schemas);
            this.mapped = mapped;
        }

        @Override
        public void write(OutboxEvent event, Message message) {
            mapped.incrementAndGet();
            super.write(event, message);
        }
    }

    /** outbox.endpoint is a mock endpoint: the size check never asks Kafka anything. */
    private static final class NoKafka extends KafkaAdmin {

        NoKafka() {
            super(null);
        }

        @Override
        public int maxMessageBytes(String topic) {
            throw new AssertionError("no Kafka in a route test");
        }

        @Override
        public String problem() {
            throw new AssertionError("no Kafka in a route test");
        }
    }
}
