-- The claim (route outbox-claim-events), as sql/postgresql/claim.sql describes it: procedure {{outbox.table}}_claim of
-- migration V4 (MariaDB has no LATERAL): one plain SELECT, one snapshot, chooses each granted partition's events (a
-- subquery per partition, UNION ALL, each partition's events in flight left out by a literal list), then a second
-- statement locks them by primary key, FOR UPDATE SKIP LOCKED, still PENDING. Parameters: the grant
-- (claim.Grant.parameters: partitions, and inFlightByPartition as [partition, id] pairs, JSON arrays through
-- sql.JsonArrayParameters) and the relay's settings.
CALL {{outbox.table}}_claim(:#partitions, :#perPartition, :#inFlightByPartition, :#${bean:relaySettings.instanceId},
                            :#${bean:relaySettings.failedBlocksKey})
