-- Deletes one bounded batch of published rows older than outbox.retention: the oldest, found through the
-- published_at index (migration V3) and deleted by their physical address (ctid), so a batch reads about as many
-- index entries and rows as it deletes, however large the table.
DELETE FROM {{outbox.table}}
 WHERE ctid = ANY(ARRAY(
         SELECT ctid
           FROM {{outbox.table}}
          WHERE status = 'PUBLISHED'
            AND published_at < now() - CAST(:#${bean:relaySettings.retentionInterval} AS interval)
          ORDER BY published_at
          LIMIT :#${bean:relaySettings.retentionBatchSize}))
