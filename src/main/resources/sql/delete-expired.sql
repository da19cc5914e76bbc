-- Deletes one bounded batch of published rows older than outbox.retention: the oldest, found through the
-- published_at index (migration V3) and deleted by their physical address (ctid), so a batch reads about as many
-- index entries and rows as it deletes, however large the table. Every instance runs the janitor: FOR UPDATE SKIP
-- LOCKED gives concurrent passes disjoint batches, so none waits on another's rows or deletes them twice (a pass
-- whose batch comes back short stops; the others carry on).
DELETE FROM {{outbox.table}}
 WHERE ctid = ANY(ARRAY(
         SELECT ctid
           FROM {{outbox.table}}
          WHERE status = 'PUBLISHED'
            AND published_at < now() - CAST(:#${bean:relaySettings.retentionInterval} AS interval)
          ORDER BY published_at
          LIMIT :#${bean:relaySettings.retentionBatchSize}
            FOR UPDATE SKIP LOCKED))
