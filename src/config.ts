import { z } from "zod";
import {
  DEV_LEDGER_TOKEN_KEY,
  LEDGER_CONFIG_FIELDS,
  LEDGER_SECRET_VARIABLES,
} from "./connector/xero/config.ts";
import { BURST_LIMIT } from "./domain/metering/plans.ts";

/** The shortest CURSOR_SECRET accepted: 32 characters, as many bytes as the AES key. */
export const CURSOR_SECRET_MIN_LENGTH = 32;

/**
 * The cursor secret of a dev process without CURSOR_SECRET: fixed and public (it is in this
 * file), so that tests, the demo and every dev instance open each other's cursors, and cursors
 * survive restarts. It is the secret cursors were sealed with before CURSOR_SECRET existed, so
 * those keep opening in dev. Refused in prod, where CURSOR_SECRET is required.
 */
export const DEV_CURSOR_SECRET = "cashrunway agent api list cursors";

/** The largest BURST_LIMIT_PER_MINUTE accepted (one request per millisecond). */
export const MAX_BURST_LIMIT_PER_MINUTE = 60_000;

/** Variables whose values never appear in a message (a bad value is described, not shown). */
const SECRET_VARIABLES: ReadonlySet<string> = new Set([
  "CURSOR_SECRET",
  "CASHRUNWAY_LLM_API_KEY",
  "METRICS_TOKEN",
  ...LEDGER_SECRET_VARIABLES,
]);

/** Each variable's own rule (see `ConfigSchema` for the rules across variables). */
const ConfigFields = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  /** Real PostgreSQL when set; otherwise an embedded PGlite database in DATA_DIR. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  DATA_DIR: z.string().min(1).default("./.cashrunway"),
  /** Starts the clock at this instant; it then advances in real time. */
  CASHRUNWAY_NOW: z.iso.datetime({ offset: true }).optional(),
  CASHRUNWAY_ENV: z.enum(["dev", "prod"]).default("dev"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /**
   * `serve`'s log lines: `json` (one object a line) or `pretty` (one readable line each); unset,
   * pretty when stdout is a terminal, else json. They go to stderr, or to LOG_FILE when set;
   * stdout carries only the lines written for people (progress, the URL, the key).
   */
  LOG_FORMAT: z.enum(["pretty", "json"]).optional(),
  /**
   * Bearer token `/metrics` requires when set (at least 16 characters; never logged). Unset,
   * `/metrics` is open, for a deployment whose network keeps it private.
   */
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  /** Appends the log lines to this file (created with its folder) instead of stderr. */
  LOG_FILE: z.string().min(1).optional(),
  /**
   * The burst cap: requests per key per endpoint in any sliding minute, for a deployment that
   * needs another than the spec's 60 (a dedicated instance, a load test). Applies to the
   * in-process and the Redis limiter alike; reported in `RateLimit-Policy` and /status.
   */
  BURST_LIMIT_PER_MINUTE: z
    .string()
    .regex(/^[0-9]+$/, "must be a whole number of requests per minute")
    .transform(Number)
    .pipe(
      z
        .number()
        .min(1, "must be at least 1")
        .max(MAX_BURST_LIMIT_PER_MINUTE, `must be at most ${MAX_BURST_LIMIT_PER_MINUTE}`),
    )
    .optional(),
  /** Shared burst limiter across instances (metering issue). */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "must be a redis:// URL")
    .optional(),
  /** Daily brief, LLM tier: an OpenAI-compatible endpoint (base URL or …/chat/completions). */
  CASHRUNWAY_LLM_URL: z.url().optional(),
  CASHRUNWAY_LLM_MODEL: z.string().min(1).optional(),
  /** Sent as a bearer token to the LLM endpoint; never logged. */
  CASHRUNWAY_LLM_API_KEY: z.string().min(1).optional(),
  /** Whole-exchange timeout of the LLM call; 20,000 when unset. */
  CASHRUNWAY_LLM_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).optional(),
  /** `off` stops the scheduler (daily forecasts, nightly baselines, the 06:00 UTC brief) here. */
  CASHRUNWAY_JOBS: z.enum(["on", "off"]).optional(),
  /**
   * Seals the agent API's list cursors (their AES-256-GCM key is derived from it). Required in
   * prod; every instance must share it, and changing it voids every cursor in flight (400
   * `invalid_cursor`). Unset in dev: `DEV_CURSOR_SECRET`. Never shown in messages or logs.
   */
  CURSOR_SECRET: z
    .string()
    .min(CURSOR_SECRET_MIN_LENGTH, `must be at least ${CURSOR_SECRET_MIN_LENGTH} characters`)
    .optional(),
  /** The live ledger connection (docs/ledger.md). */
  ...LEDGER_CONFIG_FIELDS,
});

/**
 * The whole runtime configuration, parsed once from the environment at start-up and passed down.
 * A bad value stops start-up with a message naming the variable (see `loadConfig`). Rules across
 * variables: CASHRUNWAY_ENV=prod requires a CURSOR_SECRET of its own.
 */
export const ConfigSchema = ConfigFields.superRefine((config, issues) => {
  if (config.CASHRUNWAY_ENV !== "prod") return;
  if (config.LEDGER_TOKEN_KEY === undefined || config.LEDGER_TOKEN_KEY === DEV_LEDGER_TOKEN_KEY) {
    issues.addIssue({
      code: "custom",
      path: ["LEDGER_TOKEN_KEY"],
      message: "required when CASHRUNWAY_ENV=prod (at least 32 characters, not the dev default)",
    });
  }
  if (config.CURSOR_SECRET === undefined) {
    issues.addIssue({
      code: "custom",
      path: ["CURSOR_SECRET"],
      message: `required when CASHRUNWAY_ENV=prod (at least ${CURSOR_SECRET_MIN_LENGTH} characters)`,
    });
  } else if (config.CURSOR_SECRET === DEV_CURSOR_SECRET) {
    issues.addIssue({
      code: "custom",
      path: ["CURSOR_SECRET"],
      message: "must not be the public development default when CASHRUNWAY_ENV=prod",
    });
  }
});

export type Config = z.infer<typeof ConfigSchema>;

export class ConfigError extends Error {}

/** Empty strings count as unset, as shells make it easy to export `X=`. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const input: Record<string, string> = {};
  for (const key of Object.keys(ConfigSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== "") input[key] = value;
  }
  const parsed = ConfigSchema.safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0]);
      const value = input[name] ?? "";
      const shown =
        SECRET_VARIABLES.has(name) && value !== ""
          ? `<${value.length} characters, not shown>`
          : JSON.stringify(value);
      return `  ${issue.path.join(".")}=${shown}: ${issue.message}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  return parsed.data;
}

/** The burst cap's requests per key per endpoint per minute: BURST_LIMIT_PER_MINUTE, else 60. */
export function burstLimitOf(config: Pick<Config, "BURST_LIMIT_PER_MINUTE">): number {
  return config.BURST_LIMIT_PER_MINUTE ?? BURST_LIMIT;
}

/** The secret that seals this deployment's list cursors: CURSOR_SECRET, else (dev) the default. */
export function cursorSecretOf(config: Pick<Config, "CURSOR_SECRET">): string {
  return config.CURSOR_SECRET ?? DEV_CURSOR_SECRET;
}
