-- With retention: forgets the held keys whose event no longer holds anything (published or deleted since). A FAILED
-- event's row stays: it holds its key again if outbox.failed-blocks-key is turned on. SKIP LOCKED: another
-- instance's janitor forgetting the same keys at the same time is not waited for.
DELETE FROM {{outbox.table}}_held_keys
 WHERE held_by IN (SELECT h.held_by
                     FROM {{outbox.table}}_held_keys h
                    WHERE NOT EXISTS (SELECT 1
                                        FROM {{outbox.table}} b
                                       WHERE b.id = h.held_by
                                         AND b.status <> 'PUBLISHED')
                      FOR UPDATE SKIP LOCKED)
