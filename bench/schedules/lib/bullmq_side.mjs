// The BullMQ side: job schedulers on Redis (one per pill, as in the source
// document's version 2), a worker process (bullmq_worker.mjs) writing what it
// sends into PostgreSQL, and the figures read back from there.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';

import { parallel, sleep } from './common.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

export const QUEUE = 'pills';

// An ioredis client (BullMQ 6 takes a client instance in native ESM).
export function openRedis(redisUrl) {
  return new IORedis(redisUrl, { maxRetriesPerRequest: null });
}

// The queue and its connection; BullMQ leaves a connection it was given open,
// so close() ends both.
export function openQueue(redisUrl) {
  const redis = openRedis(redisUrl);
  const queue = new Queue(QUEUE, { connection: redis });
  const close = queue.close.bind(queue);
  queue.close = async () => {
    await close();
    redis.disconnect();
  };
  return queue;
}

// upsertJobScheduler for each item {id, pattern, zone, pill, userId}, with
// `concurrency` calls in flight. Returns the wall time in ms.
export async function upsertSchedulers(queue, items, concurrency) {
  const start = performance.now();
  await parallel(items.length, concurrency, (i) => {
    const item = items[i];
    return queue.upsertJobScheduler(
      item.id,
      { pattern: item.pattern, tz: item.zone },
      { name: 'pill.reminder', data: { pill: item.pill, userId: item.userId, title: 'Sitramon' } },
    );
  });
  return performance.now() - start;
}

// The sink the worker writes: deliberately without UNIQUE (see bullmq_worker.mjs).
export async function createSinkTable(client) {
  await client.query(`CREATE TABLE reminders_sent (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    scheduler_id text NOT NULL,
    pill         bigint,
    due_at       timestamptz NOT NULL,
    sent_at      timestamptz NOT NULL DEFAULT clock_timestamp())`);
  await client.query('CREATE INDEX reminders_sent_due ON reminders_sent (due_at)');
}

// A worker process; resolves once it is connected.
export class WorkerProcess {
  constructor({ redisUrl, pgUrl, concurrency, logPath }) {
    this.args = [path.join(here, '..', 'bullmq_worker.mjs'), redisUrl, pgUrl, QUEUE, String(concurrency)];
    this.logPath = logPath;
    this.child = null;
  }

  async start(timeoutMs = 30000) {
    const log = fs.createWriteStream(this.logPath, { flags: 'a' });
    const child = spawn(process.execPath, this.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    child.stderr.pipe(log);
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`BullMQ worker not ready; see ${this.logPath}`)), timeoutMs);
      child.stdout.on('data', (data) => {
        log.write(data);
        if (String(data).includes('ready')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.on('exit', () => reject(new Error(`BullMQ worker exited; see ${this.logPath}`)));
    });
  }

  // worker.close() in the process (active jobs finish), then it exits.
  async stop() {
    if (!this.child) return null;
    const child = this.child;
    this.child = null;
    child.kill('SIGTERM');
    return child.exited;
  }
}

const kFirings = `
  SELECT scheduler_id AS key,
         extract(epoch FROM due_at) * 1000 AS due_ms,
         extract(epoch FROM sent_at) * 1000 AS sent_ms
  FROM reminders_sent
  WHERE scheduler_id LIKE $1 AND due_at = to_timestamp($2::double precision / 1000)`;

export async function lastSentId(client) {
  const { rows } = await client.query('SELECT coalesce(max(id), 0)::bigint AS id FROM reminders_sent');
  return rows[0].id;
}

// Waits until `expected` rows newer than `afterId` are written or
// `deadlineMs` passes (a primary-key range count: cheap to watch).
export async function waitSent(client, afterId, expected, deadlineMs) {
  let sent = 0;
  while (Date.now() < deadlineMs) {
    const { rows } = await client.query({
      name: 'bench_wait_sent',
      text: 'SELECT count(*)::int AS n FROM reminders_sent WHERE id > $1',
      values: [afterId],
    });
    sent = rows[0].n;
    if (sent >= expected) return sent;
    await sleep(250);
  }
  return sent;
}

export async function firings(client, prefix, dueMs, expected) {
  const { rows } = await client.query(kFirings, [`${prefix}%`, dueMs]);
  const first = new Map();
  for (const r of rows) {
    const sent = Number(r.sent_ms);
    if (!first.has(r.key) || sent < first.get(r.key).sent) first.set(r.key, { sent, due: Number(r.due_ms) });
  }
  return {
    expected,
    sent: first.size,
    lost: expected - first.size,
    duplicates: rows.length - first.size,
    lateness_ms: [...first.values()].map((f) => f.sent - f.due),
  };
}
