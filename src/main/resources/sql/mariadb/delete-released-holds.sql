-- With retention: forgets the held keys whose event no longer holds anything (published or deleted since), as
-- sql/postgresql/delete-released-holds.sql does.
DELETE FROM {{outbox.table}}_held_keys
 WHERE NOT EXISTS (SELECT 1
                     FROM {{outbox.table}} b
                    WHERE b.id = {{outbox.table}}_held_keys.held_by
                      AND b.status <> 'PUBLISHED')
