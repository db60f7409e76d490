import { pino } from "pino";

export type Logger = pino.Logger;

/**
 * Structured JSON logs. Secrets never reach a log line: request logs carry the route template
 * and the key's public prefix only, and these paths are redacted should anything pass them in.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      serializers: { err: serializeError },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          "authorization",
          "headers.authorization",
          "req.headers.authorization",
          "key",
          "secret",
          "password",
          "token",
          "*.key",
          "*.secret",
          "*.password",
          "*.token",
        ],
        censor: "[redacted]",
      },
    },
    destination,
  );
}

/**
 * pino's error serializer, without the values of a failed statement. Drizzle's message for one
 * is "Failed query: <SQL>\nparams: <every value>", and those values can be a key's digest, an
 * e-mail address or a contact's name; the database's own reason (the error's cause) is kept.
 */
export function serializeError(err: unknown): unknown {
  const out = pino.stdSerializers.err(err as Error) as Record<string, unknown>;
  if (typeof out.message === "string" && out.message.startsWith("Failed query:")) {
    const statement = out.message.slice("Failed query:".length).split("\nparams:")[0]?.trim();
    out.message = `Failed query (parameters withheld): ${statement}`;
    delete out.params; // DrizzleQueryError keeps them as a property too
    if (typeof out.stack === "string") {
      out.stack = out.stack.replace(/^[\s\S]*?\n(\s+at )/, `${out.message}\n$1`);
    }
  }
  return out;
}

/** What request handlers log through (`c.get("logger")`). */
export type RequestLogger = Pick<Logger, "debug" | "info" | "warn" | "error">;

type Level = keyof RequestLogger;

/**
 * The base logger's child with `bindings` (the request id), made on first use. A pino child with
 * redaction costs about 1.5 KB and a microsecond per request; most requests log only their final
 * line, which app.ts writes through the base logger with the id as a field. One object per
 * request with its methods on the prototype: closures made per request also cost a `name`
 * definition each under tsx (esbuild's keepNames), which is how the service runs.
 */
export function lazyChild(base: Logger, bindings: Record<string, unknown>): RequestLogger {
  return new LazyChildLogger(base, bindings);
}

class LazyChildLogger implements RequestLogger {
  private child: Logger | undefined;

  constructor(
    private readonly base: Logger,
    private readonly bindings: Record<string, unknown>,
  ) {}

  debug(...args: unknown[]): void {
    this.forward("debug", args);
  }

  info(...args: unknown[]): void {
    this.forward("info", args);
  }

  warn(...args: unknown[]): void {
    this.forward("warn", args);
  }

  error(...args: unknown[]): void {
    this.forward("error", args);
  }

  private forward(level: Level, args: unknown[]): void {
    this.child ??= this.base.child(this.bindings);
    (this.child[level] as (...a: unknown[]) => void).apply(this.child, args);
  }
}

const LEVEL_NAMES: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO",
  40: "WARN",
  50: "ERROR",
  60: "FATAL",
};

/**
 * A log line as a person reads it: `12:03:04.567 INFO  listening url=http://… database=pglite`.
 * Takes pino's JSON line (redaction and error serialisation already done) and returns one line;
 * an error's stack follows on indented lines.
 */
export function prettyLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith("\n") ? json : `${json}\n`;
  }
  const { level, time, msg, err, ...fields } = entry;
  const clock = typeof time === "string" ? time.slice(11, 23) : "";
  const name = (LEVEL_NAMES[level as number] ?? String(level)).padEnd(5);
  const rest = Object.entries(fields).map(
    ([k, v]) => `${k}=${typeof v === "string" && !/\s/.test(v) ? v : JSON.stringify(v)}`,
  );
  let line = [clock, name, msg ?? "", ...rest].filter((p) => p !== "").join(" ");
  if (err && typeof err === "object") {
    const e = err as { message?: string; stack?: string };
    line += `\n    ${(e.stack ?? e.message ?? JSON.stringify(err)).replace(/\n/g, "\n    ")}`;
  }
  return `${line}\n`;
}

/** Where `serve` writes its log lines, in which format (see LOG_FORMAT and LOG_FILE). */
export function logDestination(
  opts: { format: "pretty" | "json"; file?: string | undefined },
  stderr: NodeJS.WritableStream = process.stderr,
): pino.DestinationStream {
  const target: { write(text: string): unknown } = opts.file
    ? pino.destination({ dest: opts.file, mkdir: true, append: true, sync: true })
    : stderr;
  if (opts.format === "json") return target;
  return { write: (line: string) => void target.write(prettyLine(line)) };
}
