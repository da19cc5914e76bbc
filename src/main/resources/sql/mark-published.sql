-- Marks a batch published, in one statement, after the broker acknowledged each of its events.
UPDATE {{outbox.table}}
   SET status = 'PUBLISHED',
       published_at = now(),
       last_error = NULL,
       lease_owner = NULL,
       lease_until = NULL
 WHERE id = ANY(CAST(:#${body.published} AS uuid[]))
   AND status = 'PENDING'
