-- Read-your-writes on hot standbys ([database] read_urls, docs/configuration.md
-- "Reads from standbys"): a read that carries the LSN of its caller's last
-- write waits on the standby, in one round trip, until the standby has
-- replayed it or `timeout_ms` has passed. Created on the primary, it reaches
-- the standbys by replication like any other object. On a server that is not
-- in recovery (a primary, or a read_url that is one) every commit is there:
-- true at once.
CREATE OR REPLACE FUNCTION chopar.wait_for_replay(target pg_lsn, timeout_ms integer)
  RETURNS boolean
  LANGUAGE plpgsql
  AS $$
DECLARE
  deadline timestamptz := clock_timestamp() + make_interval(secs => timeout_ms / 1000.0);
BEGIN
  LOOP
    IF NOT pg_is_in_recovery() OR pg_last_wal_replay_lsn() >= target THEN
      RETURN true;
    END IF;
    IF clock_timestamp() >= deadline THEN
      RETURN false;
    END IF;
    -- A millisecond: the wait ends within one of the replay, at little CPU.
    PERFORM pg_sleep(0.001);
  END LOOP;
END
$$;
