import { existsSync, mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { type BrowserContext, chromium } from "playwright-core";

/** Debian's Chromium (`apt-get install chromium`); never a downloaded browser. */
export const CHROMIUM = "/usr/bin/chromium";

/**
 * Whether the browser tests run. Locally, without Chromium, they are skipped with a message
 * saying how to install it. In CI (`CI` set, as `.ci/run` does) a missing Chromium is a
 * failure, never a silent skip: the suite throws at load.
 */
export function chromiumAvailable(suite: string): boolean {
  if (existsSync(CHROMIUM)) return true;
  const how = `${CHROMIUM} is absent (apt-get install -y chromium)`;
  if (process.env.CI) throw new Error(`[${suite}] the browser tests need Chromium in CI: ${how}`);
  console.warn(`[${suite}] skipped: ${how}`);
  return false;
}

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A browser profile of its own (fresh user-data-dir), removed on close. */
export async function launchChromium(
  viewport: { width: number; height: number } = { width: 1280, height: 860 },
): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "cr-chromium-"));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: CHROMIUM_ARGS,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Serves a fetch handler on 127.0.0.1 (a free port); returns its base URL and a stop. */
export async function serveLocally(
  fetch: (req: Request) => Response | Promise<Response>,
): Promise<{ base: string; stop: () => Promise<void> }> {
  const server = serve({ fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
