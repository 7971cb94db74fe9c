// The source document's version 1 (SEEDS §001): users(id, timezone),
// pills(id, user_id, name, take_at time), notifications(pill_id, user_id,
// due_at, UNIQUE (pill_id, due_at)), and the query a cron job runs every
// minute. Its condition depends on each row's zone, so no index applies.

import { log, timeQuery } from './common.mjs';

export const CRON_SCAN_QUERY = `SELECT p.id, p.user_id, p.name
FROM pills p JOIN users u ON u.id = p.user_id
WHERE p.take_at + interval '5 min' = date_trunc('minute', now() AT TIME ZONE u.timezone)::time`;

export async function createTables(client) {
  await client.query(`
    CREATE TABLE users (id bigint PRIMARY KEY, timezone text NOT NULL);
    CREATE TABLE pills (id bigint PRIMARY KEY, user_id bigint NOT NULL REFERENCES users, name text NOT NULL,
                        take_at time NOT NULL);
    CREATE INDEX pills_user ON pills (user_id);
    CREATE TABLE notifications (pill_id bigint NOT NULL, user_id bigint NOT NULL, due_at timestamptz NOT NULL,
                                UNIQUE (pill_id, due_at));`);
}

// Grows the tables to `users` users and `pills` pills (two per user), each
// user in one of `zones`, each pill at a random minute of the day.
export async function growTo(client, { users, pills, zones }) {
  const started = performance.now();
  await client.query(
    `INSERT INTO users (id, timezone)
     SELECT g, ($2::text[])[g % array_length($2::text[], 1) + 1]
     FROM generate_series((SELECT coalesce(max(id), 0) + 1 FROM users), $1::bigint) g`,
    [users, zones],
  );
  await client.query(
    `INSERT INTO pills (id, user_id, name, take_at)
     SELECT g, (g - 1) % $2::bigint + 1, 'Sitramon', make_time(floor(random() * 24)::int, floor(random() * 60)::int, 0)
     FROM generate_series((SELECT coalesce(max(id), 0) + 1 FROM pills), $1::bigint) g`,
    [pills, users],
  );
  await client.query('VACUUM ANALYZE users');
  await client.query('VACUUM ANALYZE pills');
  log(`cron-scan tables at ${pills} pills / ${users} users (${Math.round(performance.now() - started)} ms)`);
}

export async function measure(client, runs) {
  return timeQuery(client, CRON_SCAN_QUERY, { runs });
}
