-- Plans the next statements of the transaction by index ($1 'off') or as
-- usual again ($1 'on'), around the hourly-limit and throttle counts, the
-- wake-up and the queue depth (delivery/plan_by_index.hpp).
-- Sequential scans off: a plan made while `deliveries` or its newest
-- partition was (nearly) empty would read the partitions sequentially, and a
-- named prepared statement keeps the generic plan it chose after five
-- executions until the partitions are analyzed again — through a broadcast
-- that fills them.
-- Bitmap scans off: a generic plan cannot tell that a bound on created_at
-- (the counts' split at the week) holds for every row of the week's
-- partition, so it intersected each (user, channel) probe with a bitmap of
-- the whole week's created_at index — 17 ms a count on 20 million rows of
-- history instead of 1.9 ms.
-- Generic plans: a custom plan of the counts is planned again for every
-- claim, over every partition's indexes (3 ms on 20 million rows, more than
-- running it); with the scans above off the generic plan probes the same
-- indexes and prunes the partitions when it starts.
-- With this, the plans of those statements probe the indexes whatever the
-- statistics say.
SELECT set_config('enable_seqscan', $1::text, true) AS enable_seqscan,
       set_config('enable_bitmapscan', $1::text, true) AS enable_bitmapscan,
       set_config('plan_cache_mode',
                  CASE $1::text WHEN 'off' THEN 'force_generic_plan' ELSE 'auto' END, true)
         AS plan_cache_mode
