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
