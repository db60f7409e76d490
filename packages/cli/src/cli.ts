import { parseArgs } from "node:util";
import {
  type AgentPath,
  ApiError,
  CashRunwayClient,
  ConnectionError,
  DEFAULT_BASE_URL,
} from "@cashrunway/client";
import { type FlagSpec, READ_COMMANDS, type ReadCommand } from "./commands.ts";
import {
  type ConfigFile,
  configPath,
  DEFAULT_PROFILE,
  type Profile,
  readConfig,
  writeConfig,
} from "./config.ts";
import { fields } from "./table.ts";

export const CLI_VERSION = "0.1.0";

/**
 * Exit codes. Scripts can tell a mistake in the command (2) from a key that is refused or lacks
 * a scope (3), a rate limit or spent credits (4, try later) and an unreachable service (5).
 */
export const EXIT = {
  ok: 0,
  /** Anything else: not found, a server error. */
  failure: 1,
  /** Unknown command or flag, a bad value (also when the API answers 400), a missing --org. */
  usage: 2,
  /** No key, a refused key (401), or one without the scope or reach (403). */
  auth: 3,
  /** 429: the burst limit or the query credits; the message says when to retry. */
  rateLimited: 4,
  /** The service could not be reached. */
  unreachable: 5,
} as const;

/** Where the CLI writes and what it reads: the process's, or a test's. */
export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  /** A fetch to use instead of the global one (tests). */
  fetch?: (request: Request) => Promise<Response>;
}

class UsageError extends Error {}
class AuthError extends Error {}

const GLOBAL_FLAGS = {
  json: { type: "boolean" },
  org: { type: "string" },
  token: { type: "string" },
  url: { type: "string" },
  profile: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** Runs one command line (without `node runway`); resolves to the exit code. */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  try {
    return await dispatch([...argv], io);
  } catch (err) {
    return report(err, io);
  }
}

async function dispatch(argv: string[], io: Io): Promise<number> {
  const words: string[] = [];
  while (words.length < 2 && argv[0] !== undefined && !argv[0].startsWith("-")) {
    words.push(argv.shift() as string);
  }
  if (words.length === 0) {
    if (argv.includes("--version")) {
      io.stdout(`${CLI_VERSION}\n`);
      return EXIT.ok;
    }
    const asked = argv.includes("--help") || argv.includes("-h");
    (asked ? io.stdout : io.stderr)(helpText());
    return asked ? EXIT.ok : EXIT.usage;
  }
  if (words[0] === "help") {
    io.stdout(helpText());
    return EXIT.ok;
  }
  if (words[0] === "auth") return auth(words[1], argv, io);
  // The longest command named by the words (`forecast`, `invoices list`); a word left over is a
  // positional argument (`contacts show <id>`).
  const command =
    READ_COMMANDS.find(
      (c) => c.words.length === 2 && c.words[0] === words[0] && c.words[1] === words[1],
    ) ?? READ_COMMANDS.find((c) => c.words.length === 1 && c.words[0] === words[0]);
  if (!command) {
    const family = READ_COMMANDS.filter((c) => c.words[0] === words[0]).map((c) =>
      c.words.join(" "),
    );
    throw new UsageError(
      family.length > 0
        ? `"${words.join(" ")}" is not a command; try: ${family.join(", ")}`
        : `unknown command "${words.join(" ")}" (runway help lists them)`,
    );
  }
  if (command.words.length === 1 && words[1] !== undefined) argv.unshift(words[1]);
  return read(command, argv, io);
}

async function read(command: ReadCommand, argv: string[], io: Io): Promise<number> {
  const flagSpecs = command.flags ?? [];
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      ...GLOBAL_FLAGS,
      ...Object.fromEntries(flagSpecs.map((f) => [f.flag, { type: f.type }])),
    },
    allowPositionals: true,
    strict: true,
  }) as { values: Record<string, string | boolean | undefined>; positionals: string[] };
  if (values.help) {
    io.stdout(commandHelp(command));
    return EXIT.ok;
  }
  const expected = command.positional ? 1 : 0;
  if (positionals.length !== expected) {
    throw new UsageError(
      command.positional
        ? `runway ${command.words.join(" ")} takes one <${command.positional.name}>`
        : `unexpected argument "${positionals[0]}"`,
    );
  }
  const query: Record<string, string> = {};
  const local: Record<string, string | boolean | undefined> = {};
  for (const f of flagSpecs) {
    const value = values[f.flag];
    if (value === undefined || value === false) continue;
    if (f.local) local[f.flag] = value;
    else query[f.param] = typeof value === "string" ? (f.map ? f.map(value) : value) : "true";
  }
  if (local.weeks !== undefined && !/^\d+$/.test(String(local.weeks))) {
    throw new UsageError(`--weeks must be a whole number, got "${String(local.weeks)}"`);
  }
  const { client } = await clientFor(values, io);
  // The daily brief has only the nested form: a key reaching one organisation names it itself.
  const orgId =
    command.path.includes("{orgId}") && !client.orgId ? await onlyOrg(client) : undefined;
  const body = await client.get(command.path, {
    query,
    orgId,
    ...(command.positional ? { path: { [command.positional.param]: positionals[0] } } : {}),
  } as never);
  io.stdout(
    values.json
      ? `${JSON.stringify(body, null, 2)}\n`
      : `${command.render(body as Record<string, unknown>, local)}\n`,
  );
  return EXIT.ok;
}

/** The one organisation a key reaches (one credit: GET /api/agent/orgs). */
async function onlyOrg(client: CashRunwayClient): Promise<string> {
  const { orgs } = await client.get("/api/agent/orgs");
  if (orgs.length !== 1 || !orgs[0]) {
    throw new UsageError("this key reaches several organisations: pass --org <id> (runway orgs)");
  }
  return orgs[0].id;
}

/** The client of a read: flags, then the environment, then the chosen profile. */
async function clientFor(values: Record<string, string | boolean | undefined>, io: Io) {
  const path = configPath(io.env);
  const config = await readConfig(path);
  const named = (values.profile as string | undefined) ?? io.env.CASHRUNWAY_PROFILE;
  const profileName = named ?? config.defaultProfile;
  const profile = config.profiles[profileName];
  if (named && !profile && !values.token) {
    throw new UsageError(
      `no profile "${named}" in ${path} (runway auth login --profile ${named} --token …)`,
    );
  }
  const token = (values.token as string | undefined) ?? io.env.CASHRUNWAY_TOKEN ?? profile?.token;
  if (!token) {
    throw new AuthError(
      "not logged in: run `runway auth login --token <key>` or set CASHRUNWAY_TOKEN",
    );
  }
  const client = new CashRunwayClient({
    token,
    baseUrl:
      (values.url as string | undefined) ??
      io.env.CASHRUNWAY_URL ??
      profile?.url ??
      DEFAULT_BASE_URL,
    orgId: (values.org as string | undefined) ?? io.env.CASHRUNWAY_ORG_ID ?? profile?.orgId,
    retry: { maxRetries: 2, maxWaitSeconds: 10 },
    userAgent: `runway/${CLI_VERSION}`,
    ...(io.fetch ? { fetch: io.fetch } : {}),
  });
  return { client, profileName };
}

async function auth(verb: string | undefined, argv: string[], io: Io): Promise<number> {
  const path = configPath(io.env);
  if (verb === "login") {
    const { values } = parseArgs({
      args: argv,
      options: {
        token: { type: "string" },
        profile: { type: "string" },
        url: { type: "string" },
        org: { type: "string" },
        json: { type: "boolean" },
      },
      strict: true,
    });
    const token = values.token ?? io.env.CASHRUNWAY_TOKEN;
    if (!token) throw new UsageError("auth login needs --token <key> (or CASHRUNWAY_TOKEN)");
    const url = values.url ?? io.env.CASHRUNWAY_URL ?? DEFAULT_BASE_URL;
    const name = values.profile ?? DEFAULT_PROFILE;
    // Validated before anything is written: a refused key or an unreachable URL saves nothing.
    const client = new CashRunwayClient({
      token,
      baseUrl: url,
      orgId: values.org,
      userAgent: `runway/${CLI_VERSION}`,
      ...(io.fetch ? { fetch: io.fetch } : {}),
    });
    let described: string;
    try {
      const status = await client.get("/api/agent/status");
      described = `key ${status.key.prefix} (${status.key.kind}; ${status.key.scopes.join(", ")})`;
    } catch (err) {
      // The key was accepted; it reaches several organisations (each command then takes --org).
      if (!(err instanceof ApiError && err.code === "org_required")) throw err;
      described = "a key reaching several organisations (pass --org, see `runway orgs`)";
    }
    const config = await readConfig(path);
    const profile: Profile = {
      url,
      token,
      ...(values.org ? { orgId: values.org } : {}),
      savedAt: new Date().toISOString(),
    };
    const next: ConfigFile = {
      defaultProfile: Object.keys(config.profiles).length === 0 ? name : config.defaultProfile,
      profiles: { ...config.profiles, [name]: profile },
    };
    await writeConfig(path, next);
    if (values.json)
      io.stdout(`${JSON.stringify({ profile: name, url, config: path }, null, 2)}\n`);
    else
      io.stdout(
        `Logged in to ${url} with ${described}.\nSaved as profile "${name}" in ${path} (mode 600).\n`,
      );
    return EXIT.ok;
  }
  if (verb === "logout") {
    const { values } = parseArgs({
      args: argv,
      options: { profile: { type: "string" }, all: { type: "boolean" } },
      strict: true,
    });
    const config = await readConfig(path);
    const name = values.profile ?? io.env.CASHRUNWAY_PROFILE ?? config.defaultProfile;
    if (!values.all && !config.profiles[name])
      throw new UsageError(`no profile "${name}" to log out of`);
    const profiles = values.all
      ? {}
      : Object.fromEntries(Object.entries(config.profiles).filter(([n]) => n !== name));
    const remaining = Object.keys(profiles);
    await writeConfig(path, {
      defaultProfile: profiles[config.defaultProfile]
        ? config.defaultProfile
        : (remaining[0] ?? DEFAULT_PROFILE),
      profiles,
    });
    io.stdout(values.all ? "Logged out of every profile.\n" : `Logged out of profile "${name}".\n`);
    return EXIT.ok;
  }
  if (verb === "status") {
    const { values } = parseArgs({
      args: argv,
      options: { ...GLOBAL_FLAGS, all: { type: "boolean" } },
      strict: true,
    });
    const config = await readConfig(path);
    const names = values.all ? Object.keys(config.profiles) : [undefined];
    if (values.all && names.length === 0)
      throw new AuthError("no saved profiles: runway auth login --token <key>");
    const results: Record<string, unknown> = {};
    let code: number = EXIT.ok;
    for (const name of names) {
      const { client, profileName } = await clientFor(
        { ...values, ...(name ? { profile: name } : {}) },
        io,
      );
      try {
        const status = await client.get("/api/agent/status");
        results[profileName] = status;
        if (!values.json) {
          io.stdout(
            `${fields([
              ["Profile", profileName],
              ["URL", client.baseUrl],
              ["Key", `${status.key.prefix} (${status.key.kind}) ${status.key.label}`],
              ["Scopes", status.key.scopes.join(", ")],
              ["Plan", `${status.subscription.plan} (${status.subscription.status})`],
              [
                "Credits",
                status.usage
                  ? `${status.usage.remaining} of ${status.usage.limit} left`
                  : "no billable seat",
              ],
            ])}\n\n`,
          );
        }
      } catch (err) {
        if (!values.all) throw err;
        results[profileName] = { error: err instanceof ApiError ? err.code : String(err) };
        if (!values.json)
          io.stdout(
            `Profile ${profileName}: ${err instanceof Error ? err.message : String(err)}\n\n`,
          );
        code = exitCodeOf(err);
      }
    }
    if (values.json)
      io.stdout(
        `${JSON.stringify(values.all ? results : results[Object.keys(results)[0] ?? ""], null, 2)}\n`,
      );
    return code;
  }
  throw new UsageError("auth takes login, logout or status");
}

function exitCodeOf(err: unknown): number {
  if (err instanceof UsageError) return EXIT.usage;
  if (err instanceof AuthError) return EXIT.auth;
  if (err instanceof ConnectionError) return EXIT.unreachable;
  if (err instanceof ApiError) {
    if (err.status === 401 || err.status === 403) return EXIT.auth;
    if (err.status === 429) return EXIT.rateLimited;
    if (err.status === 400) return EXIT.usage;
    return EXIT.failure;
  }
  // parseArgs's own errors (unknown flag, missing value) are usage errors.
  if (err instanceof TypeError && "code" in err && String(err.code).startsWith("ERR_PARSE_ARGS")) {
    return EXIT.usage;
  }
  return EXIT.failure;
}

function report(err: unknown, io: Io): number {
  const code = exitCodeOf(err);
  let message = err instanceof Error ? err.message : String(err);
  if (err instanceof ApiError) {
    const hints: string[] = [];
    if (err.retryAfterSeconds !== undefined) hints.push(`retry in ${err.retryAfterSeconds} s`);
    if (err.requiredScope) hints.push(`the key needs ${err.requiredScope}`);
    if (err.code === "org_required") hints.push("pass --org <id> (runway orgs lists them)");
    if (err.requestId) hints.push(`request id ${err.requestId}`);
    message = `${err.code}${err.body.message ? `: ${err.body.message}` : ""}${hints.length > 0 ? ` (${hints.join("; ")})` : ""}`;
  }
  io.stderr(`runway: ${message}\n`);
  if (code === EXIT.usage && !(err instanceof ApiError)) io.stderr("See `runway help`.\n");
  return code;
}

function flagLine(f: FlagSpec): string {
  return `  --${f.flag}${f.type === "string" ? " <value>" : ""}   ${f.help}`;
}

function commandHelp(c: ReadCommand): string {
  return [
    `runway ${c.words.join(" ")}${c.positional ? ` <${c.positional.name}>` : ""}: ${c.summary}`,
    `  GET ${c.path}`,
    ...(c.flags ?? []).map(flagLine),
    "  --json   print the endpoint's JSON body, unchanged",
    "  --org <id>  --token <key>  --url <url>  --profile <name>",
    "",
  ].join("\n");
}

export function helpText(): string {
  const width = Math.max(
    ...READ_COMMANDS.map(
      (c) => c.words.join(" ").length + (c.positional ? c.positional.name.length + 3 : 0),
    ),
  );
  return [
    `runway ${CLI_VERSION}: read-only command line for the Cash Runway agent API`,
    "",
    "  runway auth login --token <key> [--profile <name>] [--url <url>] [--org <id>]",
    "  runway auth logout [--profile <name>] [--all]",
    "  runway auth status [--profile <name>] [--all]",
    ...READ_COMMANDS.map((c) => {
      const name = `${c.words.join(" ")}${c.positional ? ` <${c.positional.name}>` : ""}`;
      return `  runway ${name.padEnd(width)}   ${c.summary}`;
    }),
    "",
    "Every read takes --json (the endpoint's body, unchanged), --org <id> (a key reaching several",
    "organisations), and --token, --url, --profile (else CASHRUNWAY_TOKEN, CASHRUNWAY_URL,",
    "CASHRUNWAY_PROFILE, then the saved profile). `runway <command> --help` lists its flags.",
    `Config: ${"$CASHRUNWAY_CONFIG or ~/.config/cashrunway/runway.json"} (mode 600). Default URL ${DEFAULT_BASE_URL}.`,
    "Exit codes: 0 ok, 1 failure, 2 usage, 3 authentication or scope, 4 rate limited, 5 unreachable.",
    "",
  ].join("\n");
}

/** The endpoint of each read command, for tests and docs. */
export function commandPaths(): { command: string; path: AgentPath }[] {
  return READ_COMMANDS.map((c) => ({ command: c.words.join(" "), path: c.path }));
}
