-- On shutdown (claim.LeaveOnStop), as sql/postgresql/leave.sql describes it: procedure {{outbox.table}}_leave of
-- migration V1.   1: this instance   2: partitions with a claim in progress (a JSON array)   3: this instance
CALL {{outbox.table}}_leave(?, ?, ?)
