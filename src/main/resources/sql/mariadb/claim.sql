-- The claim (route outbox-claim-events), as sql/postgresql/claim.sql describes it: procedure {{outbox.table}}_claim of
-- migration V1 (one SELECT ... FOR UPDATE SKIP LOCKED per granted partition, UNION ALL: MariaDB has no LATERAL).
-- Parameters: the grant (claim.Grant.parameters: partitions and inFlight as JSON arrays, sql.JsonArrayParameters)
-- and the relay's settings.
CALL {{outbox.table}}_claim(:#partitions, :#perPartition, :#inFlight, :#${bean:relaySettings.instanceId},
                            :#${bean:relaySettings.failedBlocksKey})
