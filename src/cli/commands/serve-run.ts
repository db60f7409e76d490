import { createServer } from "node:net";
import { resolve } from "node:path";
import { type Config, ConfigError } from "../../config.ts";
import { createLogger, logDestination } from "../../logger.ts";
import type { DemoSeeded, StartProgress } from "../../main.ts";
import { listOrgOwners } from "../../services/orgs/list-owners.ts";
import type { ParsedArgs } from "../args.ts";
import type { CliContext } from "../command.ts";

/** Where `serve` writes the lines meant for people (stdout), and whether it is a terminal. */
export interface StartOutput {
  write(text: string): void;
  /** A terminal: the progress bar redraws one line; otherwise each step is its own line. */
  isTTY: boolean;
}

const BAR_WIDTH = 24;

/**
 * What a start says on stdout while it runs: one line per step with its time, and a bar that
 * fills while two years of demo data are generated (redrawn in place on a terminal, printed once
 * per part elsewhere). Logs go to stderr or LOG_FILE, never here.
 */
export function startProgress(out: StartOutput, now: () => number = () => performance.now()) {
  let open: { label: string; since: number } | undefined;
  const finish = (outcome = "done") => {
    if (!open) return;
    const seconds = ((now() - open.since) / 1000).toFixed(1);
    out.write(`${out.isTTY ? "\r\x1b[K" : ""}${open.label} ${outcome} (${seconds} s)\n`);
    open = undefined;
  };
  const begin = (label: string) => {
    finish();
    open = { label, since: now() };
    if (out.isTTY) out.write(`${label}`);
  };
  return {
    step(p: StartProgress) {
      switch (p.step) {
        case "database":
          begin(
            p.embedded
              ? "Opening the embedded database and applying migrations…"
              : "Connecting to PostgreSQL and applying migrations…",
          );
          break;
        case "generate": {
          if (p.done === 0) begin("Generating two years of demo ledger data…");
          const filled = Math.round((p.done / p.total) * BAR_WIDTH);
          const bar = `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${p.done}/${p.total}`;
          const label = open?.label ?? "";
          if (out.isTTY) out.write(`\r\x1b[K${label} ${bar} ${p.part}`);
          else out.write(`  ${bar} ${p.part}\n`);
          break;
        }
        case "import":
          begin("Importing it, computing forecasts, baselines and summaries…");
          break;
        case "key":
          begin("Creating the demo API key…");
          break;
        case "done":
          finish();
          break;
      }
    },
    finish: () => finish(),
    fail: () => finish("failed"),
  };
}

/**
 * Fails as listen() would (EADDRINUSE, EACCES, EADDRNOTAVAIL) when the port cannot be had, before
 * a first start spends a minute on the database and the demo only to find it taken.
 */
export function checkPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen(port, host, () => probe.close(() => done()));
  });
}

/** The first start's block: the demo key (shown once), a curl line, the owner's password. */
export function demoLines(demo: DemoSeeded, url: string): string[] {
  return [
    "",
    "Demo organisation created. Its API key (shown once, keep it):",
    "",
    `  ${demo.key}`,
    "",
    "Try it:",
    "",
    `  curl -s -H "Authorization: Bearer ${demo.key}" ${url}/api/agent/bank-accounts`,
    "",
    `Owner's password for the settings screen: ${demo.ownerPassword}`,
    `  (shown once; change it with: npx cashrunway password set --email ${demo.ownerEmail})`,
  ];
}

/**
 * How every start ends: where the server is, the settings screen, each organisation's owner (the
 * first three) and the command that makes a new key for it, and where the logs go.
 */
export function closingLines(
  url: string,
  owners: Awaited<ReturnType<typeof listOrgOwners>>,
  logs: string,
): string[] {
  const lines = [
    "",
    `Cash Runway is running at ${url}`,
    `  Settings and dashboard: ${url}/settings/login`,
    `  API reference:          ${url}/docs`,
  ];
  for (const org of owners.orgs) {
    lines.push(
      `  Organisation:           ${org.name} (${org.orgId})`,
      `    owner:                ${org.ownerEmail ?? "(none)"}`,
      `    a new API key:        npx cashrunway keys create --org ${org.orgId} --label "My agent" --scopes READ_BANK,READ_FORECAST`,
    );
  }
  if (owners.total > owners.orgs.length) {
    lines.push(`  …and ${owners.total - owners.orgs.length} more organisations`);
  }
  if (owners.total === 0) {
    lines.push(`  No organisation yet: npx cashrunway org create --name "My business"`);
  }
  lines.push(`  Logs: ${logs}. Stop with Ctrl-C.`, "");
  return lines;
}

/** A start-up failure people can act on, as one line (null: not one of those). */
export function startFailure(err: unknown, config: Config): string | null {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === "EADDRINUSE") {
    return `port ${config.PORT} on ${config.HOST} is already in use (another cashrunway serve?); stop it or start with PORT=<another port>`;
  }
  if (code === "EACCES" && (err as { syscall?: string }).syscall === "listen") {
    return `not allowed to listen on port ${config.PORT} on ${config.HOST}; start with PORT=<a port above 1023>`;
  }
  if (code === "EADDRNOTAVAIL") {
    return `HOST ${config.HOST} is not an address of this machine; start with HOST=127.0.0.1 or HOST=0.0.0.0`;
  }
  if (code === "EACCES" || code === "EPERM" || code === "ENOTDIR" || code === "EROFS") {
    const path = (err as { path?: string }).path ?? config.DATA_DIR;
    return `the data directory cannot be used: ${path} (${code}); fix its permissions or set DATA_DIR`;
  }
  return null;
}

/** A start that cannot go on for a reason the operator can fix: one line, exit code 1. */
class StartError extends ConfigError {}

export async function runServe(args: ParsedArgs, ctx: CliContext): Promise<void> {
  args.allowOnly("demo");
  const config = ctx.config;
  const stdout: StartOutput = {
    write: (text) => process.stdout.write(text),
    isTTY: process.stdout.isTTY === true,
  };
  const format = config.LOG_FORMAT ?? (stdout.isTTY ? "pretty" : "json");
  const logger = createLogger(config.LOG_LEVEL, logDestination({ format, file: config.LOG_FILE }));
  const logs = config.LOG_FILE
    ? `${resolve(config.LOG_FILE)} (${format})`
    : `stderr (${format}; LOG_FORMAT=pretty|json, LOG_FILE=path)`;
  const progress = startProgress(stdout);
  // Loaded here, not at the top: the server (HTTP app, MCP SDK, API reference) is seconds of
  // module loading that every other command, which only opens the database, does without.
  const { startServer } = await import("../../main.ts");
  let seeded: { demo: DemoSeeded; url: string } | undefined;
  let running: Awaited<ReturnType<typeof startServer>>;
  try {
    await checkPortFree(config.PORT, config.HOST);
    running = await startServer(config, {
      demo: args.bool("demo"),
      clock: ctx.clock,
      logger,
      onProgress: (p) => progress.step(p),
      onDemo: (demo, url) => {
        seeded = { demo, url };
      },
    });
  } catch (err) {
    progress.fail();
    const line = startFailure(err, config);
    if (line) throw new StartError(line);
    throw err;
  }
  progress.finish();
  if (seeded) stdout.write(`${demoLines(seeded.demo, seeded.url).join("\n")}\n`);
  const owners = await listOrgOwners(running.database.db, 3);
  stdout.write(`${closingLines(running.url, owners, logs).join("\n")}\n`);
  const stop = () => {
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
