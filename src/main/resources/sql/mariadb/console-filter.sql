-- The console's event filter (console.EventFilter), spliced into its lists: a status, then destination, key, event
-- type and a piece of last_error (case-insensitive), each NULL for any and bound twice.
o.status = ?
   AND (? IS NULL OR o.aggregate_type = ?)
   AND (? IS NULL OR o.aggregate_id = ?)
   AND (? IS NULL OR o.event_type = ?)
   AND (? IS NULL OR locate(lower(?), lower(o.last_error)) > 0)
