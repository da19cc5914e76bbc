-- With retention: forgets the held keys whose event no longer holds anything (published or deleted since). A FAILED
-- event's row stays: it holds its key again if outbox.failed-blocks-key is turned on.
DELETE FROM {{outbox.table}}_held_keys h
 WHERE NOT EXISTS (SELECT 1
                     FROM {{outbox.table}} b
                    WHERE b.id = h.held_by
                      AND b.status <> 'PUBLISHED')
