package io.outboxrelay.publish;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.outboxrelay.metrics.RelayMetrics;
import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.impl.engine.DefaultProducerTemplate;
import org.apache.camel.support.service.ServiceHelper;
import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes one claimed batch ({@link RoundSender}: Kafka events in one exchange per destination, others through the
 * outbox-publish route), in rounds: round n sends the n-th claimed event of
 * every key, all at once and without blocking a thread per send (the Kafka client batches them); a key's next event
 * goes out only after the previous one was acknowledged, so per-key order holds even when one fails. A key whose
 * event failed sends nothing more in this batch: its remaining events are released, unsent and uncounted.
 */
public class BatchPublisher extends ServiceSupport {

    /** Set by the failure route when the broker was down: the row goes back without counting an attempt. */
    public static final String RELEASED = "outboxReleased";
    public static final String PUBLISHED = "outboxPublished";

    private static final Logger LOG = LoggerFactory.getLogger(BatchPublisher.class);

    private final CamelContext context;
    private final String publishUri;
    private final String endpointUri;
    private final OutboxEventMapper mapper;
    private final RelayMetrics metrics;
    private final BrokerOutage brokerOutage;
    private final Duration roundTimeout;
    private ProducerTemplate template;
    private ExecutorService dispatcher;
    private RoundSender sender;

    /**
     * @param publishUri the outbox-publish route, for events that are not sent in batches
     * @param endpointUri outbox.endpoint, where events go
     */
    public BatchPublisher(CamelContext context, String publishUri, String endpointUri, OutboxEventMapper mapper,
            RelayMetrics metrics, BrokerOutage brokerOutage, Duration roundTimeout) {
        this.context = context;
        this.publishUri = publishUri;
        this.endpointUri = endpointUri;
        this.mapper = mapper;
        this.metrics = metrics;
        this.brokerOutage = brokerOutage;
        this.roundTimeout = roundTimeout;
    }

    public PublishOutcome publish(List<Map<String, Object>> rows) throws InterruptedException {
        RoundSender sender = ensureStarted();
        Map<String, Deque<Map<String, Object>>> runs = new LinkedHashMap<>();
        rows.stream()
                .sorted(Comparator.comparingLong(row -> ((Number) row.get("seq")).longValue()))
                .forEach(row -> runs.computeIfAbsent(row.get("aggregate_type") + "\u0000" + row.get("aggregate_id"),
                        key -> new ArrayDeque<>()).add(row));

        List<String> published = new ArrayList<>(rows.size());
        List<String> released = new ArrayList<>();
        while (!runs.isEmpty()) {
            if (brokerOutage.isDown()) {
                runs.values().forEach(run -> run.forEach(row -> released.add(id(row))));
                break;
            }
            List<Delivery> round = sendRound(sender, runs.values());
            boolean complete = round.stream().allMatch(Delivery::isCompleted);
            Iterator<Deque<Map<String, Object>>> keys = runs.values().iterator();
            for (Delivery delivery : round) {
                Deque<Map<String, Object>> run = keys.next();
                run.removeFirst();
                if (!delivery.isCompleted()) {
                    // still unanswered: neither marked nor released, its lease decides
                    keys.remove();
                } else if (delivery.isPublished()) {
                    published.add(delivery.id());
                    if (run.isEmpty()) {
                        keys.remove();
                    }
                } else {
                    if (delivery.isReleased()) {
                        released.add(delivery.id());
                    }
                    run.forEach(row -> released.add(id(row)));
                    keys.remove();
                }
            }
            if (!complete) {
                break;
            }
        }
        return new PublishOutcome(published.toArray(new String[0]), released.toArray(new String[0]));
    }

    /** Sends the first event of every run at once and waits (up to the round timeout) for them to complete. */
    private List<Delivery> sendRound(RoundSender sender, Iterable<Deque<Map<String, Object>>> runs)
            throws InterruptedException {
        List<Delivery> round = new ArrayList<>();
        for (Deque<Map<String, Object>> run : runs) {
            round.add(new Delivery(run.peekFirst()));
        }
        CountDownLatch done = new CountDownLatch(round.size());
        // asynchronous all the way to the broker client: no thread waits per event
        sender.send(round, done::countDown);
        if (!done.await(roundTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
            Delivery stuck = round.stream().filter(d -> !d.isCompleted()).findFirst().orElseThrow();
            LOG.warn("{} of {} sends unanswered after {}; they are left to their lease. First: event {}",
                    done.getCount(), round.size(), roundTimeout, stuck.id());
        }
        return round;
    }

    private synchronized RoundSender ensureStarted() {
        if (sender == null) {
            Endpoint publishRoute = context.getEndpoint(publishUri);
            DefaultProducerTemplate producerTemplate = new DefaultProducerTemplate(context);
            // the hand-over to the non-blocking producer is quick: two threads and an unbounded queue take a whole
            // round (Camel's default pool queues 1,000 tasks at most)
            dispatcher = Executors.newFixedThreadPool(2, r -> {
                Thread t = new Thread(r, "outbox-publish-dispatch");
                t.setDaemon(true);
                return t;
            });
            producerTemplate.setExecutorService(dispatcher);
            producerTemplate.start();
            template = producerTemplate;
            sender = new RoundSender(context, producerTemplate, publishRoute, endpointUri, mapper, metrics);
        }
        return sender;
    }

    private static String id(Map<String, Object> row) {
        return row.get("id").toString();
    }

    @Override
    protected void doStop() {
        ServiceHelper.stopService(template);
        if (dispatcher != null) {
            dispatcher.shutdown();
        }
    }
}
