package io.outboxrelay.claim;

import javax.sql.DataSource;

import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * On shutdown, after the routes stopped (Camel stops its services after its routes): gives up this instance's
 * partitions at once (sql/leave.sql), so the other instances take them at their next heartbeat instead of after the
 * lease. A route cannot do it: by then the routes are stopped. Partitions with a claim still in progress (the
 * shutdown timeout ran out) are kept until their lease expires, so their next owner cannot overtake those events.
 */
public class LeaveOnStop extends ServiceSupport {

    private static final Logger LOG = LoggerFactory.getLogger(LeaveOnStop.class);

    private final DataSource dataSource;
    private final String leaveSql;
    private final String instanceId;
    private final PartitionGrants grants;

    public LeaveOnStop(DataSource dataSource, String leaveSql, String instanceId, PartitionGrants grants) {
        this.dataSource = dataSource;
        this.leaveSql = leaveSql;
        this.instanceId = instanceId;
        this.grants = grants;
    }

    @Override
    protected void doStop() {
        Integer[] busy = grants.busyPartitions();
        grants.stop();
        try {
            new JdbcTemplate(dataSource).update(leaveSql, instanceId, busy, instanceId);
        } catch (RuntimeException e) {
            LOG.warn("Could not give up this instance's partitions on shutdown; the others take them when their lease "
                    + "expires: {}", e.getMessage());
        }
    }
}
