-- sink_messages gets a row for every delivery the sink "sends" and is read
-- only by people (newest first, through the primary key) and by tests. Its
-- delivery_id index served no query of chopar's and cost an index entry on
-- every delivery's hot path.
DROP INDEX IF EXISTS chopar.sink_messages_delivery;
