-- The mark (route outbox-claim): the events the broker acknowledged become PUBLISHED, one write per event.
-- Parameter: the ids of the events acknowledged in this claim's batch (event.EventBatch).
UPDATE {{outbox.table}}
   SET status = 'PUBLISHED',
       published_at = now(),
       last_error = NULL
 WHERE id = ANY(CAST(:#${exchangeProperty.outboxBatch.publishedIds} AS uuid[]))
   AND status = 'PENDING'
