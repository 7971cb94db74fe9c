// A chopar process for the browser tests: the built binary (CHOPAR_TEST_BINARY)
// on a free 127.0.0.1 port, its own database in the throwaway cluster of
// scripts/with-test-pg (CHOPAR_TEST_DATABASE_URL), sink channels unless told
// otherwise. Restartable on the same port and database.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export const API_KEY = "browser-test-api-key";
const INBOX_SECRET = "browser-test-inbox-secret";

export function skipReason() {
  if (!process.env.CHOPAR_TEST_DATABASE_URL) return "CHOPAR_TEST_DATABASE_URL is not set (run under scripts/with-test-pg)";
  if (!process.env.CHOPAR_TEST_BINARY) return "CHOPAR_TEST_BINARY is not set";
  return null;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// Polls `check` every 100 ms until it returns something truthy, and
// resolves to that; rejects naming `what` after `timeoutMs`.
export async function until(what, check, timeoutMs = 15000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// A new empty database in the test cluster; returns its URL.
export function createDatabase(name) {
  const admin = process.env.CHOPAR_TEST_DATABASE_URL;
  const database = `${name}_${process.pid}_${Date.now()}`.toLowerCase().replace(/[^a-z0-9_]/g, "_");
  const result = spawnSync("psql", [admin, "-v", "ON_ERROR_STOP=1", "-qc", `CREATE DATABASE ${database}`], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`createdb failed: ${result.stderr}`);
  const url = new URL(admin.replace(/^postgresql:/, "http:"));
  url.pathname = `/${database}`;
  return url.href.replace(/^http:/, "postgresql:");
}

export class Chopar {
  // env: extra CHOPAR_* settings (e.g. a failing SMTP provider).
  constructor({ name, env = {} }) {
    this.name = name;
    this.extraEnv = env;
    this.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `chopar-browser-${name}-`));
    this.databaseUrl = createDatabase(name);
    this.process = null;
    this.log = "";
  }

  get url() {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(env = this.extraEnv) {
    if (!this.port) this.port = await freePort();
    const childEnv = {};
    for (const [key, value] of Object.entries(process.env)) {
      if (!key.startsWith("CHOPAR_") || key.startsWith("CHOPAR_TEST_")) childEnv[key] = value;
    }
    Object.assign(childEnv, {
      CHOPAR_DATABASE_URL: this.databaseUrl,
      CHOPAR_SERVER_LISTEN: `127.0.0.1:${this.port}`,
      CHOPAR_SERVER_API_KEY: API_KEY,
      CHOPAR_SERVER_INBOX_SECRET: INBOX_SECRET,
      CHOPAR_SERVER_DATA_DIR: this.dataDir,
      CHOPAR_SERVER_PUBLIC_URL: `http://127.0.0.1:${this.port}`,
      ...env,
    });
    this.process = spawn(process.env.CHOPAR_TEST_BINARY, ["serve"], { env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise((resolve) => this.process.once("exit", (code, signal) => resolve({ code, signal })));
    this.exited = exited;
    for (const stream of [this.process.stdout, this.process.stderr]) stream.on("data", (chunk) => (this.log += chunk));
    const deadline = Date.now() + 30000;
    while (Date.now() < deadline) {
      const state = await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), 100))]);
      if (state) throw new Error(`chopar exited (${JSON.stringify(state)}):\n${this.log}`);
      try {
        const response = await fetch(`${this.url}/healthz`);
        if (response.ok) return;
      } catch {
        // not listening yet
      }
    }
    throw new Error(`chopar did not become healthy:\n${this.log}`);
  }

  async stop() {
    if (!this.process) return;
    this.process.kill("SIGTERM");
    const timeout = setTimeout(() => this.process && this.process.kill("SIGKILL"), 15000);
    await this.exited;
    clearTimeout(timeout);
    this.process = null;
  }

  async dispose() {
    await this.stop();
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }

  // The API with the server key; resolves to {status, body}.
  async api(method, pathname, body) {
    const response = await fetch(`${this.url}${pathname}`, {
      method,
      headers: { Authorization: `Bearer ${API_KEY}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
  }

  // The API, failing the test unless the status is `expected`.
  async call(method, pathname, body, expected = [200, 201, 204]) {
    const result = await this.api(method, pathname, body);
    const allowed = Array.isArray(expected) ? expected : [expected];
    if (!allowed.includes(result.status)) {
      throw new Error(`${method} ${pathname} → ${result.status} ${JSON.stringify(result.body)}`);
    }
    return result.body;
  }

  async token(userId) {
    return (await this.call("GET", `/v1/users/${userId}/token`)).token;
  }

  notify(userId, fields = {}) {
    return this.call("POST", "/v1/notifications", { user_id: userId, type: "task.due", title: "Muddat yaqin", body: "Non olish — 18:00", link: "/tasks/1", ...fields });
  }
}
