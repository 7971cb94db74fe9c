-- Downtime does not count against a lease (docs/RELIABILITY.md): a claim
-- takes back no lease within one lease of the moment this server began
-- taking writes, so the heartbeat of a send that outlived the outage renews
-- it first. After a restart that moment is the postmaster's start. A
-- promoted standby (a failover) has run since long before it took writes,
-- and nothing the server keeps says when the promotion was: chopar notes
-- when it first saw each timeline (a promotion starts a new one), and the
-- later of the two is the moment. A timeline is noted by the first claim on
-- it, a fraction of a second after the promotion while chopar runs, or when
-- chopar comes back (its downtime does not count either).
CREATE TABLE chopar.server_timelines (
  timeline   integer PRIMARY KEY CHECK (timeline > 0),
  first_seen timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION chopar.primary_since() RETURNS timestamptz
  LANGUAGE plpgsql
  AS $$
DECLARE
  -- The timeline WAL is written on: the first 8 hex digits of a WAL
  -- file's name (a primary only: in recovery this raises an error).
  current integer := ('x' || left(pg_walfile_name(pg_current_wal_insert_lsn()), 8))::bit(32)::integer;
  seen timestamptz;
BEGIN
  SELECT first_seen INTO seen FROM chopar.server_timelines WHERE timeline = current;
  IF NOT FOUND THEN
    -- Claims meeting a new timeline at once: one inserts, the others wait
    -- for it and read its row.
    INSERT INTO chopar.server_timelines (timeline) VALUES (current) ON CONFLICT DO NOTHING;
    SELECT first_seen INTO seen FROM chopar.server_timelines WHERE timeline = current;
  END IF;
  RETURN greatest(pg_postmaster_start_time(), seen);
END
$$;

-- The timeline of today: taking writes since the server's start, as far as
-- anyone can tell (no lease is held back longer than before this table).
INSERT INTO chopar.server_timelines (timeline, first_seen)
VALUES (('x' || left(pg_walfile_name(pg_current_wal_insert_lsn()), 8))::bit(32)::integer,
        pg_postmaster_start_time());
