import { createServer, type Server } from "node:http";
import type { Duplex } from "node:stream";
import { getRequestListener, RequestError } from "@hono/node-server";

/**
 * The HTTP server for an app's `fetch`: what `serve()` of @hono/node-server builds, plus JSON
 * answers (`{ "error", "message" }`, as every other error of the service) where Node or the
 * adapter would answer before the app sees the request:
 * - a request the adapter cannot turn into a `Request` (a malformed `Host`, `GET *`, no `Host`):
 *   400 `bad_request`, where the adapter sends an empty 400;
 * - a request Node's parser refuses: see `answerClientErrorsWithJson`;
 * - `CONNECT`, which Node hands to a `connect` listener or else drops without a word: 405
 *   `method_not_allowed`, as any other method the agent API does not serve.
 * Call `listen()` on the result.
 */
export function createHttpServer(
  fetch: (request: Request) => Response | Promise<Response>,
  opts: { hostname?: string } = {},
): Server {
  const listener = getRequestListener(fetch, {
    hostname: opts.hostname,
    errorHandler: requestErrorResponse,
  });
  const server = createServer(
    // Node would answer an HTTP/1.1 request without Host with an empty 400 of its own.
    { requireHostHeader: false },
    (req, res) => {
      if (req.httpVersion === "1.1" && !hasHost(req.rawHeaders)) {
        res.writeHead(400, { "Content-Type": "application/json", Connection: "close" });
        res.end(errorJson("bad_request", "HTTP/1.1 requires a Host header."));
        return;
      }
      void listener(req, res);
    },
  );
  answerClientErrorsWithJson(server);
  server.on("connect", (_req, socket: Duplex) => {
    writeAndClose(
      socket,
      405,
      "Method Not Allowed",
      "method_not_allowed",
      "CONNECT is not served.",
      {
        Allow: "GET, HEAD",
      },
    );
  });
  return server;
}

/** The body of every answer given here: the service's error shape. */
function errorJson(code: string, message: string): string {
  return JSON.stringify({ error: code, message });
}

/**
 * Whether the raw header list names Host. Read from `rawHeaders` (name, value, name, …) rather
 * than `req.headers`, which Node builds into an object on first access: the adapter avoids it
 * on every request, and so does this check.
 */
function hasHost(rawHeaders: readonly string[]): boolean {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() === "host") return true;
  }
  return false;
}

/** The adapter's error handler: it is called only before the app has the request. */
function requestErrorResponse(err: unknown): Response {
  const invalid = err instanceof RequestError;
  return new Response(
    invalid
      ? errorJson("bad_request", "The request's URL or Host header is not valid.")
      : errorJson("internal_error", "Unexpected error."),
    { status: invalid ? 400 : 500, headers: { "Content-Type": "application/json" } },
  );
}

/**
 * Answers requests that Node's HTTP parser refuses before the app sees them (malformed request
 * line or headers, headers over the size limit, a request that took too long to arrive) with a
 * JSON body `{ "error", "message" }`, as every other error of the service, instead of Node's
 * empty `400 Bad Request`. The connection is closed afterwards, as Node does: the parser cannot
 * know where the next request would start. Nothing of the request is echoed.
 */
export function answerClientErrorsWithJson(server: {
  on(event: "clientError", listener: (err: Error, socket: Duplex) => void): unknown;
}): void {
  server.on("clientError", (err, socket) => {
    const { status, reason, code, message } = describe((err as NodeJS.ErrnoException).code);
    // Node's own rule: write only on a socket that can take it and has no response under way.
    const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || inFlight?.headersSent || status === 0) {
      socket.destroy();
      return;
    }
    writeAndClose(socket, status, reason, code, message);
  });
}

/** Writes one whole JSON error response on a raw socket and closes it. */
function writeAndClose(
  socket: Duplex,
  status: number,
  reason: string,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body = errorJson(code, message);
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\n${extra}` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The answer to one parser error code (Node's `HPE_*` and `ERR_HTTP_*`); status 0 = none. */
function describe(errCode: string | undefined): {
  status: number;
  reason: string;
  code: string;
  message: string;
} {
  switch (errCode) {
    case "ECONNRESET":
      return { status: 0, reason: "", code: "", message: "" };
    case "HPE_HEADER_OVERFLOW":
      return {
        status: 431,
        reason: "Request Header Fields Too Large",
        code: "headers_too_large",
        message: "The request's headers are larger than the server accepts.",
      };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return {
        status: 413,
        reason: "Payload Too Large",
        code: "payload_too_large",
        message: "The request's chunk extensions are larger than the server accepts.",
      };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return {
        status: 408,
        reason: "Request Timeout",
        code: "request_timeout",
        message: "The request did not arrive in time.",
      };
    default:
      return {
        status: 400,
        reason: "Bad Request",
        code: "bad_request",
        message: "The request is not valid HTTP/1.1.",
      };
  }
}
