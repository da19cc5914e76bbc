package io.outboxrelay.claim;

import java.util.function.Consumer;
import java.util.function.Function;

import javax.sql.DataSource;

import io.outboxrelay.settings.Database;
import io.outboxrelay.settings.RelaySettings;
import io.outboxrelay.sql.OutboxSql;
import org.apache.camel.CamelContext;

/**
 * The claim routes' beans, made one way for the jar, the Kamelet and the route tests: the partitions granted to
 * claims (the heartbeat's state); and, where there is a database, what wakes the claims and what leaves the
 * partitions on stop.
 */
public final class ClaimBeans {

    private ClaimBeans() {
    }

    /** Binds partitionOwnership (the heartbeat's answer) and partitionGrants (the claims' scheduling). */
    public static PartitionGrants bindGrants(CamelContext context, RelaySettings settings,
            PartitionOwnership.OwnershipListener listener) {
        PartitionOwnership ownership = new PartitionOwnership(settings.lease(), listener);
        PartitionGrants grants = new PartitionGrants(settings.concurrentClaims(), settings.batchSize(),
                settings.database() == Database.MARIADB, ownership);
        context.getRegistry().bind("partitionOwnership", ownership);
        context.getRegistry().bind("partitionGrants", grants);
        return grants;
    }

    /**
     * Leaving on stop (told when the context starts stopping: claiming stops; stopped after the routes: partitions
     * given up) and the wake-ups: new events found without the writers paying for it (the sequence watch), or by
     * LISTEN when the user opted in.
     *
     * @param services adds a service stopped with the context
     * @param wake sends to a claim route's endpoint (direct:outbox-wake, direct:outbox-look)
     */
    public static void watch(CamelContext context, RelaySettings settings, DataSource dataSource,
            PartitionGrants grants, Consumer<Object> services, Function<String, Runnable> wake) {
        LeaveOnStop leave = new LeaveOnStop(dataSource, OutboxSql.resolved(context, settings.database(), "leave"),
                settings.instanceId(), grants,
                context.getRegistry().lookupByNameAndType("partitionOwnership", PartitionOwnership.class));
        context.getManagementStrategy().addEventNotifier(leave);
        services.accept(leave);
        if (settings.wakeUp() == RelaySettings.WakeUp.NOTIFY) {
            services.accept(new InsertListener(dataSource, settings.table().qualified(),
                    wake.apply("direct:outbox-wake")));
            return;
        }
        // MariaDB's one claim at a time (without a backlog) sends for ~150 ms beside 32 writers, and the watch's ~15
        // looks meanwhile and their refused wake-ups took 12% of the relay's CPU: there the watch waits for the claim.
        // Not on PostgreSQL, whose drain spent 6-33% more relay CPU per event with it (docs/BENCHMARKS.md, issue 33,
        // the session of 2026-11-30 14:08)
        boolean waitForClaims = settings.database() == Database.MARIADB;
        NewEventsWatch watch = new NewEventsWatch(dataSource, watchedOutbox(context, settings),
                settings.wakeUpMinIntervalMs(), settings.wakeUpMaxIntervalMs(), wake.apply("direct:outbox-wake"),
                wake.apply("direct:outbox-look"), waitForClaims ? grants::full : () -> false);
        if (waitForClaims) {
            grants.onClaimEnd(watch::claimEnded);
        }
        services.accept(watch);
    }

    private static WatchedOutbox watchedOutbox(CamelContext context, RelaySettings settings) {
        if (settings.database() == Database.MARIADB) {
            return new MariadbOutboxWatch(OutboxSql.resolved(context, Database.MARIADB, "watch-sequence"),
                    OutboxSql.resolved(context, Database.MARIADB, "watch-writers"));
        }
        boolean claimIndex = settings.wakeUp() == RelaySettings.WakeUp.CLAIM_INDEX;
        return new PostgresqlOutboxWatch(settings.table(),
                PostgresqlOutboxWatch.Statements.of(claimIndex, name -> OutboxSql.resolved(context, name)),
                claimIndex);
    }
}
