import type { Duplex } from "node:stream";

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
    const body = JSON.stringify({ error: code, message });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
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
