-- The claim (route outbox-claim-events), as sql/postgresql/claim.sql describes it: procedure {{outbox.table}}_claim of
-- migration V1 (one SELECT ... FOR UPDATE SKIP LOCKED per granted partition, UNION ALL: MariaDB has no LATERAL).
-- (V4: each partition's read leaves out its own events in flight, a literal list.) Parameters: the grant
-- (claim.Grant.parameters: partitions, and inFlightByPartition as [partition, id] pairs, JSON arrays through
-- sql.JsonArrayParameters) and the relay's settings.
CALL {{outbox.table}}_claim(:#partitions, :#perPartition, :#inFlightByPartition, :#${bean:relaySettings.instanceId},
                            :#${bean:relaySettings.failedBlocksKey})
