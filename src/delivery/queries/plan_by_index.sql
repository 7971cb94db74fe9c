-- Switches sequential scans off ($1 'off') or on again ($1 'on') for the
-- rest of the transaction, around the hourly-limit and throttle counts, the
-- wake-up and the queue depth (delivery/plan_by_index.hpp): a plan made while
-- `deliveries` or its newest partition was (nearly) empty would read the
-- partitions sequentially, and a named prepared statement keeps the generic
-- plan it chose after five executions until the partitions are analyzed
-- again — through a broadcast that fills them. With this, every plan of those
-- statements, generic or custom, probes the indexes whatever the statistics say.
SELECT set_config('enable_seqscan', $1::text, true) AS enable_seqscan
