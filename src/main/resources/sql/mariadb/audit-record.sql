-- One entry of the replay audit trail (replay.AuditTrail): who, action, selection (JSON), count, outcome.
INSERT INTO {{outbox.table}}_audit (who, action, selection, `count`, outcome)
VALUES (?, ?, ?, ?, ?)
