// The BullMQ side's worker process, as in the source document's version 2:
// one process, concurrency 50, each job "sent" by writing a row into
// PostgreSQL with its scheduled instant (job.opts.prevMillis) as due_at and
// the time of the write as sent_at. The table has no UNIQUE constraint on
// purpose, so a job processed twice shows up as a duplicate instead of being
// hidden.
//
//   node bullmq_worker.mjs REDIS_URL PG_URL QUEUE [CONCURRENCY]
//
// Prints "ready" once connected; SIGTERM closes the worker (active jobs
// finish first) and exits 0.

import { Worker } from 'bullmq';
import IORedis from 'ioredis';
import pg from 'pg';

const [redisUrl, pgUrl, queueName, concurrencyText = '50'] = process.argv.slice(2);
if (!redisUrl || !pgUrl || !queueName) {
  console.error('usage: node bullmq_worker.mjs REDIS_URL PG_URL QUEUE [CONCURRENCY]');
  process.exit(2);
}

const pool = new pg.Pool({ connectionString: pgUrl, max: 10 });
const redis = new IORedis(redisUrl, { maxRetriesPerRequest: null });

const worker = new Worker(
  queueName,
  async (job) => {
    await pool.query(
      'INSERT INTO reminders_sent (scheduler_id, pill, due_at) VALUES ($1, $2, to_timestamp($3::double precision / 1000))',
      [job.repeatJobKey ?? job.opts.repeatJobKey ?? job.id, job.data.pill, job.opts.prevMillis],
    );
  },
  {
    connection: redis,
    concurrency: Number(concurrencyText),
    autorun: true,
  },
);
worker.on('failed', (job, error) => console.error(`job ${job?.id} failed: ${error.message}`));
worker.on('error', (error) => console.error(`worker error: ${error.message}`));

await worker.waitUntilReady();
console.log('ready');

let closing = false;
process.on('SIGTERM', async () => {
  if (closing) return;
  closing = true;
  await worker.close();
  redis.disconnect();
  await pool.end();
  console.log('closed');
  process.exit(0);
});
