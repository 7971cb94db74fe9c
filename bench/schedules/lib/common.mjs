// Helpers shared by the schedules benchmark: zones and wall-clock patterns,
// statistics, PostgreSQL and Redis access, printing.

import pg from 'pg';

// Mixed IANA zones: whole-hour, half-hour and 45-minute offsets, DST north and
// south, negative DST, no DST.
export const ZONES = [
  'Asia/Tashkent', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Asia/Kathmandu',
  'Australia/Lord_Howe', 'America/St_Johns', 'Pacific/Chatham', 'Europe/Dublin', 'Asia/Tokyo',
  'America/Sao_Paulo', 'Africa/Cairo', 'Europe/Moscow', 'America/Los_Angeles', 'Australia/Sydney',
  'America/Santiago',
];

const formatters = new Map();

// The wall-clock hour and minute of instant `ms` in `zone`.
export function localHourMinute(ms, zone) {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formatters.set(zone, format);
  }
  const parts = format.formatToParts(new Date(ms));
  const hour = Number(parts.find((p) => p.type === 'hour').value);
  const minute = Number(parts.find((p) => p.type === 'minute').value);
  return { hour, minute };
}

// The daily pattern "M H * * *" firing at instant `ms` (a minute boundary) in `zone`.
export function dailyPatternAt(ms, zone) {
  const { hour, minute } = localHourMinute(ms, zone);
  return `${minute} ${hour} * * *`;
}

// A deterministic pseudo-random generator (mulberry32), so every run creates
// the same set of patterns relative to its start.
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Daily patterns whose next firing lies between `fromMs` + 1 h and + 23 h, so
// the bulk schedules never fire while the benchmark runs: for each zone the
// wall-clock minute of the day at fromMs is read once, then a minute 60..1380
// minutes later is picked at random.
export function quietDailyPatterns(count, zoneOf, fromMs, seed) {
  const nowMinute = new Map();
  for (const zone of ZONES) {
    const { hour, minute } = localHourMinute(fromMs, zone);
    nowMinute.set(zone, hour * 60 + minute);
  }
  const next = random(seed);
  const patterns = new Array(count);
  for (let i = 0; i < count; ++i) {
    const zone = zoneOf(i);
    const m = (nowMinute.get(zone) + 60 + Math.floor(next() * 1320)) % 1440;
    patterns[i] = `${m % 60} ${Math.floor(m / 60)} * * *`;
  }
  return patterns;
}

// The next minute boundary at least `leadMs` from now.
export function nextMinuteAfter(leadMs) {
  return Math.ceil((Date.now() + leadMs) / 60000) * 60000;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
export const sleepUntil = (ms) => sleep(ms - Date.now());

// Sorted-sample percentile (nearest rank).
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function summarize(values) {
  const sorted = Float64Array.from(values).sort();
  return {
    count: sorted.length,
    min: sorted.length ? sorted[0] : NaN,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
  };
}

// Runs `task(i)` for i in [0, count) with at most `limit` in flight.
export async function parallel(count, limit, task) {
  let nextIndex = 0;
  const lane = async () => {
    while (nextIndex < count) {
      const i = nextIndex++;
      await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, lane));
}

export function log(...args) {
  const stamp = new Date().toISOString().slice(11, 23);
  console.log(`[${stamp}]`, ...args);
}

export const fmt = {
  ms: (v) => (Number.isFinite(v) ? `${Math.round(v).toLocaleString('en-US')} ms` : 'n/a'),
  s: (v, digits = 2) => (Number.isFinite(v) ? `${v.toFixed(digits)} s` : 'n/a'),
  int: (v) => Math.round(v).toLocaleString('en-US'),
};

// A PostgreSQL connection string for another database on the same server.
export function databaseUrl(serverUrl, database) {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function withClient(url, fn) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function recreateDatabase(serverUrl, name) {
  await withClient(serverUrl, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${name}`);
  });
}

// Mean, min and max of `runs` client-timed executions of `sql` as a named
// prepared statement (as chopar's own libpq code runs it), after `warmup`
// unmeasured ones, plus the server's own planning + execution time from
// EXPLAIN (ANALYZE) EXECUTE of that same prepared statement.
let statementCount = 0;
export async function timeQuery(client, sql, { runs, warmup = 6, params = [] }) {
  const name = `bench_${++statementCount}`;
  const query = { name, text: sql, values: params };
  for (let i = 0; i < warmup; ++i) await client.query(query);
  const times = [];
  let rows = 0;
  for (let i = 0; i < runs; ++i) {
    const start = process.hrtime.bigint();
    const result = await client.query(query);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    rows = result.rowCount;
  }
  const literal = (v) => (typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`);
  const execute = params.length ? `EXECUTE ${name}(${params.map(literal).join(', ')})` : `EXECUTE ${name}`;
  const explain = [];
  for (let i = 0; i < Math.min(runs, 5); ++i) {
    const plan = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${execute}`);
    explain.push(plan.rows[0]['QUERY PLAN'][0]);
  }
  const serverMs = explain.map((e) => e['Execution Time'] + (e['Planning Time'] ?? 0));
  return {
    runs,
    rows,
    client_mean_ms: times.reduce((a, b) => a + b, 0) / times.length,
    client_median_ms: percentile(Float64Array.from(times).sort(), 50),
    client_min_ms: Math.min(...times),
    client_max_ms: Math.max(...times),
    server_mean_ms: serverMs.reduce((a, b) => a + b, 0) / serverMs.length,
    plan: summarizePlan(explain[explain.length - 1].Plan),
  };
}

// "Limit > Index Only Scan on schedules_due" — the node types and relations of a plan.
function summarizePlan(node) {
  const here = `${node['Node Type']}${node['Relation Name'] ? ` on ${node['Relation Name']}` : ''}${node['Index Name'] ? ` using ${node['Index Name']}` : ''}`;
  const children = (node.Plans || []).map(summarizePlan);
  return children.length ? `${here} > (${children.join(', ')})` : here;
}

// Redis INFO field, e.g. used_memory.
export async function redisInfo(redis, section, field) {
  const text = await redis.info(section);
  const line = text.split('\r\n').find((l) => l.startsWith(`${field}:`));
  return line ? line.slice(field.length + 1) : undefined;
}
