import { z } from "zod";

/**
 * The whole runtime configuration, parsed once from the environment at start-up and passed down.
 * A bad value stops start-up with a message naming the variable (see `loadConfig`).
 */
export const ConfigSchema = z.object({
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
    const lines = parsed.error.issues.map(
      (issue) =>
        `  ${issue.path.join(".")}=${JSON.stringify(input[String(issue.path[0])] ?? "")}: ${issue.message}`,
    );
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  return parsed.data;
}
