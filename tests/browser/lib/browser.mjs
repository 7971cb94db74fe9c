// Debian's chromium driven by playwright-core: headless, sandbox off (the
// tests may run as root), nothing that reaches for the network, and a fresh
// profile per launch.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";

export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function chromiumPath() {
  for (const candidate of [process.env.CHOPAR_TEST_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"]) {
    if (candidate && fs.existsSync(candidate)) return candidate;
  }
  return null;
}

// A browser context with its own profile folder, removed by close().
export async function launch({ viewport = { width: 1280, height: 860 } } = {}) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "chopar-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport,
    locale: "en-US",
    timezoneId: "UTC",
  });
  const close = async () => {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  };
  return { context, close };
}

// Where screenshots go: CHOPAR_TEST_SCREENSHOTS_DIR (`make screenshots` points it
// at docs/screenshots), else a folder of the build.
export function screenshotPath(name) {
  const dir = process.env.CHOPAR_TEST_SCREENSHOTS_DIR || path.join(os.tmpdir(), "chopar-screenshots");
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, `${name}.png`);
}
