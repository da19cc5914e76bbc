-- Deletes one bounded batch of published rows older than outbox.retention.
DELETE FROM {{outbox.table}}
 WHERE id IN (SELECT id
                FROM {{outbox.table}}
               WHERE status = 'PUBLISHED'
                 AND published_at < now() - CAST('{{outbox.retention}}' AS interval)
               LIMIT {{outbox.retention.batch-size}})
