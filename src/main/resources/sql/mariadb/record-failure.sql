-- Records one failed attempt (route outbox-record-failure), as sql/postgresql/record-failure.sql describes it:
-- procedure {{outbox.table}}_record_failure of migration V1. Returns the row's status; no row when the failure was
-- not written.
CALL {{outbox.table}}_record_failure(:#${exchangeProperty.outboxEventId}, :#outboxError, :#outboxUnpublishable,
                                     :#${bean:relaySettings.maxAttempts}, :#${bean:relaySettings.instanceId},
                                     :#${bean:relaySettings.backoffInitialInterval},
                                     :#${bean:relaySettings.backoffMaxInterval})
