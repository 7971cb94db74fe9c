// The chopar side: a `chopar serve` process on loopback against its own
// database, the schedules API over HTTP, and the figures read back from
// PostgreSQL (deliveries.sent_at against the notification's data.due_at).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import pg from 'pg';

import { log, sleep } from './common.mjs';

export class ChoparServer {
  // binary: path to chopar; env: CHOPAR_* variables; logPath: stdout+stderr (appended).
  constructor({ binary, env, logPath, port, apiKey }) {
    this.binary = binary;
    this.env = env;
    this.logPath = logPath;
    this.base = `http://127.0.0.1:${port}`;
    this.apiKey = apiKey;
    this.child = null;
  }

  async start(timeoutMs = 60000) {
    const out = fs.openSync(this.logPath, 'a');
    this.child = spawn(this.binary, ['serve'], { env: { ...process.env, ...this.env }, stdio: ['ignore', out, out] });
    fs.closeSync(out);
    const child = this.child;
    child.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`chopar serve exited during start; see ${this.logPath}`);
      }
      try {
        const response = await fetch(`${this.base}/healthz`);
        if (response.ok) return;
      } catch {
        // not listening yet
      }
      await sleep(50);
    }
    throw new Error(`chopar serve not healthy after ${timeoutMs} ms; see ${this.logPath}`);
  }

  // Sends `signal` and waits for the process to end.
  async stop(signal = 'SIGTERM') {
    if (!this.child) return null;
    const child = this.child;
    this.child = null;
    child.kill(signal);
    return child.exited;
  }

  async call(method, path, body) {
    const response = await fetch(`${this.base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${this.apiKey}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} → ${response.status}: ${text.slice(0, 500)}`);
    return text ? JSON.parse(text) : null;
  }

  async version() {
    return new Promise((resolve) => {
      const child = spawn(this.binary, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.on('exit', () => resolve(out.trim() || 'unknown'));
      child.on('error', () => resolve('unknown'));
    });
  }
}

// A schedule as the bulk API takes it.
export function scheduleItem(key, userId, cron, zone) {
  return { key, user_id: userId, cron, timezone: zone, notification: { type: 'pill.reminder', title: 'Sitramon' } };
}

// Bulk PUT /v1/schedules in requests of `bulk` items, `inflight` requests at
// a time. Returns the wall time in ms.
export async function putSchedules(server, items, { bulk, inflight }) {
  const bodies = [];
  for (let i = 0; i < items.length; i += bulk) bodies.push(items.slice(i, i + bulk));
  let next = 0;
  let upserted = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(inflight, bodies.length) }, async () => {
      while (next < bodies.length) {
        const chunk = bodies[next++];
        const answer = await server.call('PUT', '/v1/schedules', JSON.stringify({ schedules: chunk }));
        upserted += answer.upserted;
      }
    }),
  );
  const ms = performance.now() - start;
  if (upserted !== items.length) throw new Error(`bulk PUT upserted ${upserted} of ${items.length}`);
  return ms;
}

export async function schedulesSize(client) {
  const { rows } = await client.query(
    `SELECT pg_total_relation_size('chopar.schedules')::bigint AS total,
            pg_relation_size('chopar.schedules')::bigint AS heap,
            pg_indexes_size('chopar.schedules')::bigint AS indexes,
            (SELECT count(*) FROM chopar.schedules)::bigint AS count`,
  );
  return Object.fromEntries(Object.entries(rows[0]).map(([k, v]) => [k, Number(v)]));
}

// The firings of schedules whose key starts with `prefix` due at `dueMs`:
// one row per sink message (a duplicate send shows as a second row), with
// the notification's creation, the delivery's claim and its sent_at. A
// firing written ahead of its instant has created_at = the instant (it is
// committed then), so the claim is when it had become visible and a worker
// took it.
const kFirings = `
  SELECT n.data->>'schedule' AS key,
         extract(epoch FROM (n.data->>'due_at')::timestamptz) * 1000 AS due_ms,
         extract(epoch FROM n.created_at) * 1000 AS created_ms,
         extract(epoch FROM d.claimed_at) * 1000 AS claimed_ms,
         extract(epoch FROM d.sent_at) * 1000 AS sent_ms,
         d.status,
         (SELECT count(*) FROM chopar.sink_messages m WHERE m.delivery_id = d.id) AS sink_rows
  FROM chopar.notifications n
  JOIN chopar.deliveries d ON d.notification_id = n.id
  WHERE n.data->>'schedule' LIKE $1 AND n.dedup_key LIKE 'schedule:%'
    AND (n.data->>'due_at')::timestamptz = to_timestamp($2::double precision / 1000)`;

// The newest delivery id: deliveries after it are the ones a slot creates.
export async function lastDeliveryId(client) {
  const { rows } = await client.query('SELECT coalesce(max(id), 0)::bigint AS id FROM chopar.deliveries');
  return rows[0].id;
}

// Waits until `expected` deliveries newer than `afterId` are sent or
// `deadlineMs` passes. The poll is an index range scan over the new rows
// only, so watching costs the system under test next to nothing.
export async function waitSent(client, afterId, expected, deadlineMs) {
  let sent = 0;
  while (Date.now() < deadlineMs) {
    const { rows } = await client.query({
      name: 'bench_wait_sent',
      text: "SELECT count(*)::int AS n FROM chopar.deliveries WHERE status = 'sent' AND id > $1",
      values: [afterId],
    });
    sent = rows[0].n;
    if (sent >= expected) return sent;
    await sleep(250);
  }
  return sent;
}

// Sent, lost, duplicates and lateness (sent_at − due) of one due instant.
export async function firings(client, prefix, dueMs, expected) {
  const { rows } = await client.query(kFirings, [`${prefix}%`, dueMs]);
  const sent = rows.filter((r) => r.status === 'sent');
  const keys = new Set(sent.map((r) => r.key));
  const sinkRows = rows.reduce((a, r) => a + Number(r.sink_rows), 0);
  return {
    expected,
    sent: keys.size,
    lost: expected - keys.size,
    // Two notifications for one occurrence, or one delivery written to the sink twice.
    duplicates: rows.length - new Set(rows.map((r) => r.key)).size + Math.max(0, sinkRows - rows.length),
    lateness_ms: sent.map((r) => Number(r.sent_ms) - Number(r.due_ms)),
    fired_lag_ms: rows.map((r) => Number(r.created_ms) - Number(r.due_ms)),
    claimed_lag_ms: sent.map((r) => Number(r.claimed_ms) - Number(r.due_ms)),
    pipeline_ms: sent.map((r) => Number(r.sent_ms) - Number(r.created_ms)),
  };
}

export async function seedUsers(client, count, zones) {
  const started = performance.now();
  await client.query(
    `INSERT INTO chopar.users (id, email, timezone)
     SELECT g, 'u' || g || '@example.uz', ($2::text[])[g % array_length($2::text[], 1) + 1]
     FROM generate_series(1, $1::int) g`,
    [count, zones],
  );
  log(`chopar: ${count} users seeded by SQL in ${Math.round(performance.now() - started)} ms`);
}

export { pg };
