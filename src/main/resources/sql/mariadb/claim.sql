-- The claim (route outbox-claim-events), as sql/postgresql/claim.sql describes it: procedure {{outbox.table}}_claim of
-- migration V5 (MariaDB has no LATERAL): one plain SELECT, one snapshot, walks the claim index (status, seq,
-- partition_number) from the oldest PENDING event and chooses the next events of the granted partitions (the events
-- in flight left out by a literal list), then a second statement locks them by seq, FOR UPDATE SKIP LOCKED, still
-- PENDING. Parameters: the grant (claim.Grant.parameters: partitions, and inFlightByPartition as [partition, id]
-- pairs, JSON arrays through sql.JsonArrayParameters) and the relay's settings.
CALL {{outbox.table}}_claim(:#partitions, :#perPartition, :#inFlightByPartition, :#${bean:relaySettings.instanceId},
                            :#${bean:relaySettings.failedBlocksKey})
