/** Socket errors that mean the database server cannot be reached or the connection was lost. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/**
 * SQLSTATEs that mean the server is away rather than the statement wrong: class 08 (connection
 * exception), the shutdown and start-up states of class 57, and too many connections.
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300)$/;

/** What node-postgres and PGlite say, without a code, when the connection is gone. */
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|connection error|Connection ended|PGlite is closed|Cannot use a pool after calling end/i;

/**
 * Whether `err` (or any error in its `cause` chain: drizzle wraps driver errors) says the
 * database cannot be reached, as opposed to a query that failed on its own merits. A request
 * refused for this reason answers 503 `service_unavailable` with `Retry-After`, never 500.
 */
export function isDatabaseUnreachable(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.test(code))) {
      return true;
    }
    if (UNAVAILABLE_MESSAGES.test(e.message)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
