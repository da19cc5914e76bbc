-- The FAILED events a filtered replay from the console takes: the filter's rows up to the highest seq the operator
-- confirmed (NULL at the first call), so an event that fails later is never added to the confirmed set.
SELECT o.id, o.seq
  FROM {{outbox.table}} o
 WHERE {{sql:console-filter}}
   AND (? IS NULL OR o.seq <= ?)
 ORDER BY o.seq
