package io.outboxrelay.claim;

import javax.sql.DataSource;

import org.apache.camel.spi.CamelEvent;
import org.apache.camel.support.EventNotifierSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * How this instance leaves on SIGTERM, in Camel's shutdown order. A stop is not a failure: no event gets an attempt
 * or a backoff because its relay was stopping.
 * <ol>
 * <li>When the context starts stopping (before Camel's graceful shutdown of the routes): no claim is granted any more,
 * and no claim goes again. The claims in progress finish the sends under way and their marks, and send nothing more
 * (their unsent events are released untouched: PartitionGrants.stopGranting): the claim route's seda consumer and
 * the direct publish routes are deferred by Camel's shutdown strategy until nothing is in flight, and the broker
 * producers belong to those routes, so they stay up until then. The heartbeat route is deferred too (shutdownRoute:
 * Defer), so the leases stay confirmed while the claims finish. A claim whose first send to a destination comes after
 * the stop began cannot send it (Camel starts no new producer while its context stops): its unsent events are
 * released untouched (failure.FailedAttempts.leaveForTheNextClaim).</li>
 * <li>After the routes stopped (Camel stops its services after its routes): gives up this instance's partitions at
 * once (sql/leave.sql), so the other instances take them at their next heartbeat instead of after the lease.
 * Partitions with a claim still in progress (the shutdown timeout ran out) are kept until their lease expires, so
 * their next owner cannot overtake those events.</li>
 * </ol>
 * A route cannot do either: the first comes before any route step runs, the second after the routes stopped.
 */
public class LeaveOnStop extends EventNotifierSupport {

    private static final Logger LOG = LoggerFactory.getLogger(LeaveOnStop.class);

    private final DataSource dataSource;
    private final String leaveSql;
    private final String instanceId;
    private final PartitionGrants grants;
    private final PartitionOwnership ownership;

    public LeaveOnStop(DataSource dataSource, String leaveSql, String instanceId, PartitionGrants grants,
            PartitionOwnership ownership) {
        this.dataSource = dataSource;
        this.leaveSql = leaveSql;
        this.instanceId = instanceId;
        this.grants = grants;
        this.ownership = ownership;
        // only the context's stopping event: a notifier that takes exchange events makes Camel emit them for every
        // exchange
        setIgnoreExchangeEvents(true);
        setIgnoreRouteEvents(true);
        setIgnoreServiceEvents(true);
        setIgnoreStepEvents(true);
    }

    @Override
    public boolean isEnabled(CamelEvent event) {
        return event instanceof CamelEvent.CamelContextStoppingEvent;
    }

    @Override
    public void notify(CamelEvent event) {
        grants.stopGranting();
        LOG.info("Stopping: no new claim; the claims in progress finish the sends under way and their marks");
    }

    @Override
    protected void doStop() throws Exception {
        grants.stopGranting();
        Integer[] busy = grants.busyPartitions();
        ownership.stop();
        try {
            new JdbcTemplate(dataSource).update(leaveSql, instanceId, busy, instanceId);
        } catch (RuntimeException e) {
            LOG.warn("Could not give up this instance's partitions on shutdown; the others take them when their lease "
                    + "expires: {}", e.getMessage());
        }
        super.doStop();
    }
}
