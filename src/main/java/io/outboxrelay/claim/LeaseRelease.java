package io.outboxrelay.claim;

import java.sql.Connection;
import java.sql.Statement;

import javax.sql.DataSource;

import org.apache.camel.Route;
import org.apache.camel.support.RoutePolicySupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Route policy of the claim route: when it has stopped (its batches in flight finished), every row this instance
 * still leases was claimed but never routed, so it is given back at once instead of waiting for its lease.
 */
public class LeaseRelease extends RoutePolicySupport {

    private static final Logger LOG = LoggerFactory.getLogger(LeaseRelease.class);

    private final DataSource dataSource;
    private final String releaseSql;

    public LeaseRelease(DataSource dataSource, String releaseSql) {
        this.dataSource = dataSource;
        this.releaseSql = releaseSql;
    }

    @Override
    public void onStop(Route route) {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            int released = statement.executeUpdate(releaseSql);
            if (released > 0) {
                LOG.info("Released {} claimed rows that were not published before shutdown", released);
            }
        } catch (Exception e) {
            LOG.warn("Could not release claimed rows on shutdown; they are claimable again when their lease expires: {}",
                    e.getMessage());
        }
    }
}
