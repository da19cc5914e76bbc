-- One round trip every outbox.instance.heartbeat (route outbox-heartbeat), as sql/postgresql/heartbeat.sql describes
-- it: procedure {{outbox.table}}_heartbeat of migration V1. Returns the partitions this instance owns afterwards.
-- Parameters (claim.PartitionGrants.heartbeat): inFlight integer, drained a JSON array (sql.JsonArrayParameters).
CALL {{outbox.table}}_heartbeat(:#${bean:relaySettings.instanceId}, :#${bean:relaySettings.partitions},
                                :#${bean:relaySettings.staleAfterInterval}, :#${bean:relaySettings.leaseInterval},
                                :#inFlight, :#drained)
