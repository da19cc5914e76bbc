-- The mark (route outbox-mark): the events the broker acknowledged become PUBLISHED, one write per event.
-- Parameter (event.OutboxEvent.Batch.markParameters): ids, those of the events acknowledged in this claim's batch.
UPDATE {{outbox.table}}
   SET status = 'PUBLISHED',
       published_at = now(),
       last_error = NULL
 WHERE id = ANY(CAST(:#ids AS uuid[]))
   AND status = 'PENDING'
