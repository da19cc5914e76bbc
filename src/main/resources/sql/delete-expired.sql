-- Deletes one bounded batch of published rows older than outbox.retention: the oldest, found through the
-- published_at index (migration V3) and deleted by their physical address (ctid), so a batch reads about as many
-- index entries and rows as it deletes, however large the table. Every instance runs the janitor, one pass at a
-- time: a batch runs only under the table's janitor lock (a transaction-level advisory lock, tried, never waited
-- for); a pass that does not get it comes back empty and ends, and the pass holding it goes on alone. Three passes
-- at once take as long as one (bench/: janitors). FOR UPDATE SKIP LOCKED besides: a batch never waits on rows
-- another statement holds, nor takes them twice.
DELETE FROM {{outbox.table}}
 WHERE ctid = ANY(ARRAY(
         SELECT ctid
           FROM {{outbox.table}}
          WHERE (SELECT pg_try_advisory_xact_lock(hashtext('{{outbox.table}}_janitor')))
            AND status = 'PUBLISHED'
            AND published_at < now() - CAST(:#${bean:relaySettings.retentionInterval} AS interval)
          ORDER BY published_at
          LIMIT :#${bean:relaySettings.retentionBatchSize}
            FOR UPDATE SKIP LOCKED))
