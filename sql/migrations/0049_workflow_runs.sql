-- migrate: no transaction
-- Workflows with steps (docs/api.md "Workflows with steps"): a type whose
-- template has `steps` gives each of its notifications one run, a row that
-- says which step is next and when it is due. Any number of advancers
-- (src/workflow/engine/step_advancer.cpp) claim due runs with FOR UPDATE
-- SKIP LOCKED and do each step in one transaction with the run's update, so
-- a step is done once across crashes and restarts. Nothing waits in a
-- process's memory.
--
-- No transaction: each statement takes its table's lock alone and lets it
-- go (the deliveries' ALTER and trigger beside live notify traffic never
-- hold the users' lock the new table's foreign key takes, or the other
-- way round). Every statement is safe to run again from the top.
--
-- status:
--   active    due at due_at: the advancer does step `step` then
--   waiting   a channel step's delivery (delivery_id) is on its way; the
--             delivery's final status makes the run active again (the
--             trigger below), due at once
--   done      every step done, or a step ended the run (throttled, digested)
--   canceled  POST /v1/notifications/cancel stopped the steps left
CREATE TABLE IF NOT EXISTS chopar.workflow_runs (
  notification_id         bigint PRIMARY KEY,
  -- The notification's partition key: the advancer finds it in one partition.
  notification_created_at timestamptz NOT NULL,
  user_id                 bigint NOT NULL REFERENCES chopar.users ON DELETE CASCADE,
  type                    text NOT NULL CHECK (type ~ '^[a-z]+(\.[a-z_]+)*$' AND length(type) <= 100),
  tenant                  text CHECK (tenant IS NULL OR length(tenant) BETWEEN 1 AND 100),
  -- The channels the request named (NULL: any); a channel step sends only on these.
  channels                text[] CHECK (channels IS NULL OR cardinality(channels) <= 32),
  step                    integer NOT NULL DEFAULT 0 CHECK (step BETWEEN 0 AND 20),
  status                  text NOT NULL DEFAULT 'active'
                            CHECK (status IN ('active', 'waiting', 'done', 'canceled')),
  due_at                  timestamptz,
  -- waiting: what for: a channel step's delivery, or a digest step's window
  -- to close (the digest closer wakes the runs of a window it closes).
  waits_on                text CHECK (waits_on IN ('delivery', 'digest')),
  -- The delivery the current channel step waits for (or waited for).
  delivery_id             bigint,
  delivery_created_at     timestamptz,  -- its partition key
  -- The channels of the current `first_of` step tried so far, in order.
  tried                   text[] NOT NULL DEFAULT '{}' CHECK (cardinality(tried) <= 32),
  -- One entry per step done, in order: {"index", "type", "outcome",
  -- "channel", "delivery_id", "at", "until", "detail"} (the API's
  -- workflow.steps).
  outcomes                jsonb NOT NULL DEFAULT '[]'
                            CHECK (jsonb_typeof(outcomes) = 'array' AND jsonb_array_length(outcomes) <= 64),
  -- The digest window its digest step closed with (digests.workflow): the
  -- run of the window's newest notification carries the digest on, and
  -- its deliveries say what the window's content says.
  digest_id               bigint,
  -- When the run last passed a throttle step: what a throttle step counts.
  throttle_passed_at      timestamptz,
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now(),
  CHECK ((status = 'active') = (due_at IS NOT NULL)),
  CHECK ((status = 'waiting') = (waits_on IS NOT NULL)),
  CHECK (waits_on IS DISTINCT FROM 'delivery' OR delivery_id IS NOT NULL)
);
-- What the advancer claims: active runs by due time.
CREATE INDEX IF NOT EXISTS workflow_runs_due ON chopar.workflow_runs (due_at) WHERE status = 'active';
-- What a throttle step counts: the user's runs of the type that passed one
-- within its window.
CREATE INDEX IF NOT EXISTS workflow_runs_throttle ON chopar.workflow_runs (user_id, type, throttle_passed_at)
  WHERE throttle_passed_at IS NOT NULL;
-- Retention forgets the runs of the notifications it dropped, oldest first.
CREATE INDEX IF NOT EXISTS workflow_runs_created ON chopar.workflow_runs (notification_created_at);
-- The erasure loop and the export find a user's runs.
CREATE INDEX IF NOT EXISTS workflow_runs_user ON chopar.workflow_runs (user_id);

-- A digest window opened by workflow runs' digest steps: the closer wakes
-- its runs instead of queuing deliveries. A constant default: no rewrite.
ALTER TABLE chopar.digests ADD COLUMN IF NOT EXISTS workflow boolean NOT NULL DEFAULT false;

-- The workflow step that waits for the delivery (NULL: none does, and its
-- end writes nothing more; docs/api.md "Workflows with steps"). A new
-- nullable column without a default rewrites nothing; its CHECK, added with
-- it, finds only NULLs.
ALTER TABLE chopar.deliveries
  ADD COLUMN IF NOT EXISTS workflow_step smallint
    CONSTRAINT deliveries_workflow_step_check
    CHECK (workflow_step IS NULL OR workflow_step BETWEEN 0 AND 20);

-- A workflow delivery's final status wakes its run, in the transaction that
-- set it, whichever path set it (the worker's record, the claim's skip, a
-- cancel, an operator). Deliveries of no workflow pass the WHEN clause
-- without running anything.
CREATE OR REPLACE FUNCTION chopar.wake_workflow_run() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
  UPDATE chopar.workflow_runs
  SET status = 'active', waits_on = NULL, due_at = now(), updated_at = now()
  WHERE notification_id = NEW.notification_id AND status = 'waiting' AND waits_on = 'delivery'
    AND delivery_id = NEW.id;
  IF FOUND THEN
    PERFORM pg_notify('chopar_workflows', '');
  END IF;
  RETURN NULL;
END
$f$;

CREATE OR REPLACE TRIGGER deliveries_wake_workflow_run
  AFTER UPDATE OF status ON chopar.deliveries
  FOR EACH ROW
  WHEN (NEW.workflow_step IS NOT NULL AND OLD.status IS DISTINCT FROM NEW.status
        AND NEW.status IN ('sent', 'failed', 'skipped', 'canceled'))
  EXECUTE FUNCTION chopar.wake_workflow_run();
