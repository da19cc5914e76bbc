-- The console's event filter (console.EventFilter), spliced into its lists: a status, then destination, key, event
-- type and a piece of last_error (case-insensitive), each NULL for any and bound twice.
o.status = ?
   AND (CAST(? AS text) IS NULL OR o.aggregate_type = ?)
   AND (CAST(? AS text) IS NULL OR o.aggregate_id = ?)
   AND (CAST(? AS text) IS NULL OR o.event_type = ?)
   AND (CAST(? AS text) IS NULL OR strpos(lower(o.last_error), lower(?)) > 0)
