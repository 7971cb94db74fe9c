// Schedules side by side: chopar (PostgreSQL) and BullMQ 6 job schedulers
// (Redis 7), the experiment of SEEDS §001 / issue 4 item 4, in one run:
//
//   (a) create N schedules (daily "M H * * *" patterns, mixed IANA zones):
//       wall time, bytes per schedule;
//   (b) D schedules due in the same minute, delivered to a sink: lateness
//       from the due instant to sent, p50/p95/max;
//   (c) the worker stopped 30 s across a due minute for O schedules: sent,
//       lost, duplicates, lateness;
//   (d) the source document's cron-scan query at 100k and 1M pills vs
//       chopar's due lookup at 1M schedules with nothing due.
//
// Normally started by bench/schedules_bench.sh, which installs and starts
// Redis, PostgreSQL and chopar's build. Exits non-zero on errors, never
// because of the figures.
//
//   node run.mjs --pg URL --redis URL --chopar PATH --work DIR [options]

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import * as bull from './lib/bullmq_side.mjs';
import * as chopar from './lib/chopar_side.mjs';
import * as scan from './lib/cron_scan.mjs';
import {
  ZONES, databaseUrl, dailyPatternAt, fmt, log, nextMinuteAfter, quietDailyPatterns, recreateDatabase,
  redisInfo, sleepUntil, summarize, timeQuery, withClient,
} from './lib/common.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');

const defaults = {
  pg: process.env.CHOPAR_TEST_DATABASE_URL,
  redis: 'redis://127.0.0.1:6399',
  chopar: path.join(repo, 'build', 'chopar'),
  work: '/tmp/chopar-schedules-bench',
  users: 50000,
  schedules: 100000,
  bulk: 10000,
  'chopar-inflight': 2,
  'bullmq-inflight': 100,
  'bullmq-concurrency': 50,
  due: 10000,
  outage: 1000,
  'outage-seconds': 30,
  'lead-seconds': 30,
  'scan-sizes': '100000,1000000',
  'lookup-schedules': 1000000,
  runs: 20,
  phases: 'a,b,c,d',
  out: '',
};

function parseArgs(argv) {
  const options = { ...defaults };
  for (let i = 0; i < argv.length; ++i) {
    const name = argv[i].replace(/^--/, '');
    if (name === 'help' || name === 'h') {
      console.log(`node run.mjs [--name value]…; names and defaults:\n${JSON.stringify(defaults, null, 2)}`);
      process.exit(0);
    }
    if (!(name in defaults) || i + 1 >= argv.length) throw new Error(`unknown option or missing value: ${argv[i]}`);
    const value = argv[++i];
    options[name] = typeof defaults[name] === 'number' ? Number(value) : value;
    if (typeof defaults[name] === 'number' && !Number.isFinite(options[name])) throw new Error(`--${name}: not a number`);
  }
  if (!options.pg) throw new Error('--pg URL is required (or CHOPAR_TEST_DATABASE_URL)');
  options.phases = new Set(options.phases.split(','));
  return options;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

const zoneOfUser = (user) => ZONES[user % ZONES.length];

function latency(values) {
  const s = summarize(values);
  return { count: s.count, p50_ms: s.p50, p95_ms: s.p95, max_ms: s.max, min_ms: s.min };
}

function withoutSamples(f) {
  const { lateness_ms, fired_lag_ms, claimed_lag_ms, pipeline_ms, ...rest } = f;
  const out = { ...rest, lateness: latency(lateness_ms) };
  if (fired_lag_ms) out.fired_lag = latency(fired_lag_ms);
  if (claimed_lag_ms) out.claimed_lag = latency(claimed_lag_ms);
  if (pipeline_ms) out.fired_to_sent = latency(pipeline_ms);
  return out;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  fs.mkdirSync(o.work, { recursive: true });
  const results = { started_at: new Date().toISOString(), options: { ...o, phases: [...o.phases] } };

  // ------------------------------------------------------------ setup
  const choparDb = databaseUrl(o.pg, 'bench_chopar');
  const bullDb = databaseUrl(o.pg, 'bench_bullmq');
  const scanDb = databaseUrl(o.pg, 'bench_cron_scan');
  for (const name of ['bench_chopar', 'bench_bullmq', 'bench_cron_scan']) await recreateDatabase(o.pg, name);

  const port = await freePort();
  const server = new chopar.ChoparServer({
    binary: o.chopar,
    port,
    apiKey: 'bench-key',
    logPath: path.join(o.work, 'chopar.log'),
    env: {
      CHOPAR_DATABASE_URL: choparDb,
      CHOPAR_SERVER_LISTEN: `127.0.0.1:${port}`,
      CHOPAR_SERVER_API_KEY: 'bench-key',
      CHOPAR_SERVER_DATA_DIR: path.join(o.work, 'var'),
      CHOPAR_LIMITS_HOURLY_EMAIL: '1000000',
      CHOPAR_LIMITS_HOURLY_TELEGRAM: '1000000',
      CHOPAR_LIMITS_HOURLY_PUSH: '1000000',
      CHOPAR_LIMITS_HOURLY_SMS: '1000000',
    },
  });
  await server.start();
  const pgc = new chopar.pg.Client({ connectionString: choparDb });
  await pgc.connect();
  await pgc.query('SET search_path = chopar, public'); // chopar's own queries name tables unqualified
  const bullPg = new chopar.pg.Client({ connectionString: bullDb });
  await bullPg.connect();
  await bull.createSinkTable(bullPg);
  const redis = bull.openRedis(o.redis);
  const queue = bull.openQueue(o.redis);
  await queue.waitUntilReady();
  await redis.flushall();

  results.versions = {
    chopar: await server.version(),
    postgresql: (await pgc.query('SHOW server_version')).rows[0].server_version,
    redis: await redisInfo(redis, 'server', 'redis_version'),
    redis_appendonly: (await redis.config('GET', 'appendonly'))[1],
    bullmq: JSON.parse(fs.readFileSync(path.join(here, 'node_modules', 'bullmq', 'package.json'))).version,
    node: process.version,
  };
  log('versions', results.versions);
  await chopar.seedUsers(pgc, o.users, ZONES);

  let worker = null;
  const startWorker = async () => {
    worker = new bull.WorkerProcess({
      redisUrl: o.redis, pgUrl: bullDb, concurrency: o['bullmq-concurrency'], logPath: path.join(o.work, 'bullmq-worker.log'),
    });
    await worker.start();
  };

  try {
    // ---------------------------------------------------------- (a) create
    if (o.phases.has('a')) {
      const n = o.schedules;
      const userOf = (i) => (i % o.users) + 1;
      const patterns = quietDailyPatterns(n, (i) => zoneOfUser(userOf(i)), Date.now(), 1);
      log(`(a) chopar: ${fmt.int(n)} schedules, bulk PUT /v1/schedules of ${o.bulk}, ${o['chopar-inflight']} in flight`);
      const items = patterns.map((p, i) => chopar.scheduleItem(`pill-${i + 1}`, userOf(i), p, zoneOfUser(userOf(i))));
      const before = await chopar.schedulesSize(pgc);
      const choparMs = await chopar.putSchedules(server, items, { bulk: o.bulk, inflight: o['chopar-inflight'] });
      const after = await chopar.schedulesSize(pgc);
      if (after.count - before.count !== n) throw new Error(`chopar holds ${after.count - before.count} new schedules, expected ${n}`);
      const choparA = {
        count: n,
        seconds: choparMs / 1000,
        per_second: n / (choparMs / 1000),
        bytes_per_schedule: (after.total - before.total) / n,
        heap_bytes_per_schedule: (after.heap - before.heap) / n,
        index_bytes_per_schedule: (after.indexes - before.indexes) / n,
      };
      log('(a) chopar', choparA);

      log(`(a) BullMQ: ${fmt.int(n)} upsertJobScheduler, ${o['bullmq-inflight']} in flight`);
      const bullItems = patterns.map((p, i) => ({ id: `pill-${i + 1}`, pattern: p, zone: zoneOfUser(userOf(i)), pill: i + 1, userId: userOf(i) }));
      const memBefore = Number(await redisInfo(redis, 'memory', 'used_memory'));
      const bullMs = await bull.upsertSchedulers(queue, bullItems, o['bullmq-inflight']);
      const memAfter = Number(await redisInfo(redis, 'memory', 'used_memory'));
      const schedulers = await queue.getJobSchedulersCount();
      const delayed = await queue.getDelayedCount();
      if (schedulers !== n || delayed !== n) throw new Error(`BullMQ holds ${schedulers} schedulers and ${delayed} delayed jobs, expected ${n}`);
      const bullA = { count: n, seconds: bullMs / 1000, per_second: n / (bullMs / 1000), bytes_per_schedule: (memAfter - memBefore) / n };
      log('(a) BullMQ', bullA);
      results.create = { chopar: choparA, bullmq: bullA };
    }

    // ------------------------------------------------ (b) and (c), one minute each
    if (o.phases.has('b') || o.phases.has('c')) {
      await startWorker();
      // Four consecutive minute boundaries, so no system works while the other is measured:
      // chopar (b), BullMQ (b), chopar (c), BullMQ (c).
      const t0 = nextMinuteAfter(o['lead-seconds'] * 1000);
      const slot = { choparDue: t0, bullDue: t0 + 60000, choparOutage: t0 + 120000, bullOutage: t0 + 180000 };
      const dueUsers = (i) => (i % o.users) + 1;
      const outageUsers = (i) => ((o.due + i) % o.users) + 1;
      log(`(b,c) due minutes: chopar ${new Date(slot.choparDue).toISOString()}, BullMQ ${new Date(slot.bullDue).toISOString()}; ` +
          `outages across ${new Date(slot.choparOutage).toISOString()} and ${new Date(slot.bullOutage).toISOString()}`);
      const setupStart = performance.now();
      if (o.phases.has('b')) {
        const items = Array.from({ length: o.due }, (_, i) => chopar.scheduleItem(`due-${i + 1}`, dueUsers(i), dailyPatternAt(slot.choparDue, zoneOfUser(dueUsers(i))), zoneOfUser(dueUsers(i))));
        await chopar.putSchedules(server, items, { bulk: o.bulk, inflight: 1 });
        await bull.upsertSchedulers(queue, Array.from({ length: o.due }, (_, i) => ({
          id: `due-${i + 1}`, pattern: dailyPatternAt(slot.bullDue, zoneOfUser(dueUsers(i))), zone: zoneOfUser(dueUsers(i)), pill: -(i + 1), userId: dueUsers(i),
        })), o['bullmq-inflight']);
      }
      if (o.phases.has('c')) {
        const items = Array.from({ length: o.outage }, (_, i) => chopar.scheduleItem(`outage-${i + 1}`, outageUsers(i), dailyPatternAt(slot.choparOutage, zoneOfUser(outageUsers(i))), zoneOfUser(outageUsers(i))));
        await chopar.putSchedules(server, items, { bulk: o.bulk, inflight: 1 });
        await bull.upsertSchedulers(queue, Array.from({ length: o.outage }, (_, i) => ({
          id: `outage-${i + 1}`, pattern: dailyPatternAt(slot.bullOutage, zoneOfUser(outageUsers(i))), zone: zoneOfUser(outageUsers(i)), pill: -(o.due + i + 1), userId: outageUsers(i),
        })), o['bullmq-inflight']);
      }
      log(`(b,c) schedules created in ${Math.round(performance.now() - setupStart)} ms`);
      if (Date.now() > t0 - 3000) throw new Error('creating the due schedules overran the first due minute; raise --lead-seconds');

      if (o.phases.has('b')) {
        log(`(b) chopar: ${fmt.int(o.due)} due at ${new Date(slot.choparDue).toISOString()}`);
        const choparFrom = await chopar.lastDeliveryId(pgc);
        await sleepUntil(slot.choparDue);
        await chopar.waitSent(pgc, choparFrom, o.due, slot.choparDue + 55000);
        const c = await chopar.firings(pgc, 'due-', slot.choparDue, o.due);
        log(`(b) BullMQ: ${fmt.int(o.due)} due at ${new Date(slot.bullDue).toISOString()}`);
        const bullFrom = await bull.lastSentId(bullPg);
        await sleepUntil(slot.bullDue);
        await bull.waitSent(bullPg, bullFrom, o.due, slot.bullDue + 55000);
        const b = await bull.firings(bullPg, 'due-', slot.bullDue, o.due);
        results.due_minute = { chopar: withoutSamples(c), bullmq: withoutSamples(b) };
        log('(b)', results.due_minute);
      }

      if (o.phases.has('c')) {
        const outageMs = o['outage-seconds'] * 1000;
        // chopar: kill -9 half a second before the due minute, start again `outage` later.
        const choparFrom = await chopar.lastDeliveryId(pgc);
        await sleepUntil(slot.choparOutage - 500);
        const killedAt = Date.now();
        await server.stop('SIGKILL');
        log(`(c) chopar: serve killed (SIGKILL) ${slot.choparOutage - killedAt} ms before ${new Date(slot.choparOutage).toISOString()}`);
        await sleepUntil(killedAt + outageMs);
        const restartAt = Date.now();
        await server.start();
        log(`(c) chopar: serve started again after ${restartAt - killedAt} ms down, healthy after ${Date.now() - restartAt} ms more`);
        await chopar.waitSent(pgc, choparFrom, o.outage, slot.choparOutage + 58000);
        const c = await chopar.firings(pgc, 'outage-', slot.choparOutage, o.outage);
        c.down_ms = restartAt - killedAt;

        // BullMQ: the worker closed half a second before its due minute, a new one `outage` later.
        const bullFrom = await bull.lastSentId(bullPg);
        await sleepUntil(slot.bullOutage - 500);
        const closedAt = Date.now();
        await worker.stop();
        log(`(c) BullMQ: worker closed ${slot.bullOutage - closedAt} ms before ${new Date(slot.bullOutage).toISOString()}`);
        await sleepUntil(closedAt + outageMs);
        const reopenAt = Date.now();
        await startWorker();
        log(`(c) BullMQ: worker started again after ${reopenAt - closedAt} ms down`);
        await bull.waitSent(bullPg, bullFrom, o.outage, slot.bullOutage + 58000);
        const b = await bull.firings(bullPg, 'outage-', slot.bullOutage, o.outage);
        b.down_ms = reopenAt - closedAt;
        results.outage = { chopar: withoutSamples(c), bullmq: withoutSamples(b) };
        log('(c)', results.outage);
      }
      await worker.stop();
      worker = null;
    }

    // ---------------------------------------------------------- (d) lookups
    if (o.phases.has('d')) {
      const scanResults = [];
      await withClient(scanDb, async (client) => {
        await scan.createTables(client);
        for (const size of o['scan-sizes'].split(',').map(Number)) {
          await scan.growTo(client, { users: size / 2, pills: size, zones: ZONES });
          const runs = size > 200000 ? Math.max(3, Math.round(o.runs / 4)) : o.runs;
          const m = await scan.measure(client, runs);
          scanResults.push({ pills: size, users: size / 2, ...m });
          log(`(d) cron scan at ${fmt.int(size)} pills: mean ${m.client_mean_ms.toFixed(1)} ms (server ${m.server_mean_ms.toFixed(1)} ms), ${m.rows} rows; ${m.plan}`);
        }
      });

      const have = (await chopar.schedulesSize(pgc)).count;
      const missing = Math.max(0, o['lookup-schedules'] - have);
      let topUpMs = 0;
      if (missing > 0) {
        const first = o.schedules + 1;
        const userOf = (i) => ((first - 1 + i) % o.users) + 1;
        const patterns = quietDailyPatterns(missing, (i) => zoneOfUser(userOf(i)), Date.now(), 2);
        log(`(d) chopar: ${fmt.int(missing)} more schedules to reach ${fmt.int(o['lookup-schedules'])}`);
        const items = patterns.map((p, i) => chopar.scheduleItem(`pill-${first + i}`, userOf(i), p, zoneOfUser(userOf(i))));
        topUpMs = await chopar.putSchedules(server, items, { bulk: o.bulk, inflight: o['chopar-inflight'] });
      }
      await pgc.query('VACUUM ANALYZE chopar.schedules');
      const size = await chopar.schedulesSize(pgc);
      const nextDue = fs.readFileSync(path.join(repo, 'src', 'schedule', 'queries', 'next_due.sql'), 'utf8');
      const claim = fs.readFileSync(path.join(repo, 'src', 'schedule', 'queries', 'claim_due_schedules.sql'), 'utf8');
      const now = new Date().toISOString();
      const state = (await pgc.query(nextDue, [now])).rows[0];
      const lookups = {
        schedules: size.count,
        created_extra: missing,
        created_extra_seconds: topUpMs / 1000,
        bytes_per_schedule_at_size: size.total / size.count,
        due_now: Number(state.due),
        next_fire_at: state.next_fire_at,
        min_next_fire_at: await timeQuery(pgc, 'SELECT min(next_fire_at) FROM chopar.schedules WHERE enabled', { runs: o.runs * 5 }),
        idle_lookup: await timeQuery(pgc, nextDue, { runs: o.runs * 5, params: [now] }),
        claim_nothing_due: await timeQuery(pgc, claim, { runs: o.runs * 5, params: [now, 500] }),
      };
      results.lookups = { cron_scan: scanResults, chopar: lookups };
      log('(d) chopar lookups at', fmt.int(size.count), {
        min: lookups.min_next_fire_at.client_mean_ms, idle: lookups.idle_lookup.client_mean_ms, claim: lookups.claim_nothing_due.client_mean_ms,
      });
    }
  } finally {
    if (worker) await worker.stop();
    await server.stop('SIGTERM');
    await queue.close();
    redis.disconnect();
    await pgc.end();
    await bullPg.end();
  }

  results.finished_at = new Date().toISOString();
  if (o.out) fs.writeFileSync(o.out, JSON.stringify(results, null, 2));
  printSummary(results);
}

function printSummary(r) {
  const lines = ['', '== Schedules: chopar vs BullMQ ==', `versions: ${JSON.stringify(r.versions)}`];
  const cmp = (what, target) => `${what}  [target: ${target}]`;
  if (r.create) {
    const { chopar: c, bullmq: b } = r.create;
    lines.push('(a) create', `  chopar : ${fmt.int(c.count)} in ${fmt.s(c.seconds)} (${fmt.int(c.per_second)}/s), ${c.bytes_per_schedule.toFixed(0)} B/schedule (heap ${c.heap_bytes_per_schedule.toFixed(0)}, indexes ${c.index_bytes_per_schedule.toFixed(0)})`,
      `  BullMQ : ${fmt.int(b.count)} in ${fmt.s(b.seconds)} (${fmt.int(b.per_second)}/s), ${b.bytes_per_schedule.toFixed(0)} B/schedule (Redis used_memory)`,
      `  ${cmp(`speed-up ${(b.seconds / c.seconds).toFixed(1)}x, ${verdict(b.seconds / c.seconds >= 10)}; size ${verdict(c.bytes_per_schedule <= 300)}`, '>= 10x, <= 300 B')}`);
  }
  const lat = (f) => `p50 ${fmt.ms(f.lateness.p50_ms)}, p95 ${fmt.ms(f.lateness.p95_ms)}, max ${fmt.ms(f.lateness.max_ms)}`;
  if (r.due_minute) {
    const { chopar: c, bullmq: b } = r.due_minute;
    lines.push('(b) due in one minute, lateness due → sent',
      `  chopar : ${c.sent}/${c.expected} sent, ${lat(c)} (fired p95 ${fmt.ms(c.fired_lag.p95_ms)}, claimed p95 ${fmt.ms(c.claimed_lag.p95_ms)}, fired → sent p95 ${fmt.ms(c.fired_to_sent.p95_ms)})`,
      `  BullMQ : ${b.sent}/${b.expected} sent, ${lat(b)}`,
      `  ${cmp(`p95 ratio ${(c.lateness.p95_ms / b.lateness.p95_ms).toFixed(3)}, ${verdict(c.lateness.p95_ms <= b.lateness.p95_ms / 10 && c.lateness.p95_ms < 1000 && c.lost === 0)}`, 'chopar p95 <= BullMQ p95 / 10 and < 1 s')}`);
  }
  if (r.outage) {
    const { chopar: c, bullmq: b } = r.outage;
    const row = (f) => `${f.sent} sent, ${f.lost} lost, ${f.duplicates} duplicates, down ${fmt.s(f.down_ms / 1000, 1)}, late ${fmt.s(f.lateness.min_ms / 1000, 1)}–${fmt.s(f.lateness.max_ms / 1000, 1)} (p50 ${fmt.s(f.lateness.p50_ms / 1000, 1)})`;
    lines.push('(c) worker down across a due minute',
      `  chopar : ${row(c)}`, `  BullMQ : ${row(b)}`,
      `  ${cmp(verdict(c.lost === 0 && c.duplicates === 0 && c.lateness.max_ms <= c.down_ms + 1000), '0 lost, 0 duplicates, late <= outage + 1 s')}`);
  }
  if (r.lookups) {
    for (const s of r.lookups.cron_scan) {
      lines.push(`(d) cron scan (source v1) at ${fmt.int(s.pills)} pills: mean ${s.client_mean_ms.toFixed(2)} ms, median ${s.client_median_ms.toFixed(2)} ms client; ${s.server_mean_ms.toFixed(2)} ms server (${s.runs} runs, ${s.rows} rows)`);
    }
    const c = r.lookups.chopar;
    const q = (m) => `mean ${m.client_mean_ms.toFixed(3)} ms, median ${m.client_median_ms.toFixed(3)} ms client; ${m.server_mean_ms.toFixed(3)} ms server`;
    lines.push(`(d) chopar at ${fmt.int(c.schedules)} schedules (${c.due_now} due, ${c.bytes_per_schedule_at_size.toFixed(0)} B/schedule):`,
      `  min(next_fire_at)              ${q(c.min_next_fire_at)}`,
      `  scheduler idle lookup          ${q(c.idle_lookup)}`,
      `  scheduler claim, nothing due   ${q(c.claim_nothing_due)}`,
      `  plans: ${c.min_next_fire_at.plan} | ${c.idle_lookup.plan}`,
      `  ${cmp(verdict(c.idle_lookup.client_mean_ms < 1 && c.due_now === 0), 'idle due lookup at 1M < 1 ms')}`);
  }
  console.log(lines.join('\n'));
}

const verdict = (ok) => (ok ? 'MET' : 'MISSED');

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
