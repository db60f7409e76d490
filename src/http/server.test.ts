import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { answerClientErrorsWithJson, createHttpServer } from "./server.ts";

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A plain Node server with the handler, answering 200 to any request it can parse. */
async function start(opts: { maxHeaderSize?: number } = {}): Promise<number> {
  server = createServer(opts, (_req, res) => res.end("ok"));
  answerClientErrorsWithJson(server);
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

/** Sends raw bytes and returns everything the server writes before it closes. */
function raw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.on("data", (d) => {
      received += d.toString("latin1");
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(received));
    socket.write(bytes);
  });
}

function parse(response: string) {
  const [head = "", body = ""] = response.split("\r\n\r\n");
  const [statusLine = "", ...headers] = head.split("\r\n");
  return {
    status: Number(statusLine.split(" ")[1]),
    headers: Object.fromEntries(
      headers.map((h) => [h.slice(0, h.indexOf(":")).toLowerCase(), h.slice(h.indexOf(":") + 2)]),
    ),
    body: JSON.parse(body) as { error: string; message: string },
  };
}

describe("requests Node's parser refuses", () => {
  it("answers a malformed request line with a JSON 400 and closes", async () => {
    const port = await start();
    const r = parse(await raw(port, "GARBAGE\r\n\r\n"));
    expect(r.status).toBe(400);
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.headers.connection).toBe("close");
    expect(r.body.error).toBe("bad_request");
    expect(r.body.message).toMatch(/HTTP/);
  });

  it("answers a header with a bad character with a JSON 400 that does not echo it", async () => {
    const port = await start();
    const response = await raw(
      port,
      "GET / HTTP/1.1\r\nHost: x\r\nX-Secret\u0001: hunter2\r\n\r\n",
    );
    const r = parse(response);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("bad_request");
    expect(response).not.toContain("hunter2");
  });

  it("answers headers over the limit with a JSON 431", async () => {
    const port = await start({ maxHeaderSize: 1024 });
    const r = parse(
      await raw(port, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(4096)}\r\n\r\n`),
    );
    expect(r.status).toBe(431);
    expect(r.body.error).toBe("headers_too_large");
  });

  it("leaves well-formed requests alone", async () => {
    const port = await start();
    const response = await raw(port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(response.startsWith("HTTP/1.1 200 OK")).toBe(true);
    expect(response.endsWith("ok")).toBe(true);
  });
});

describe("requests the adapter cannot turn into a Request, and CONNECT", () => {
  async function startApp(): Promise<number> {
    server = createHttpServer(() => new Response("ok"), { hostname: "127.0.0.1" });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    return (server.address() as AddressInfo).port;
  }

  it.each([
    ["a Host with a space", "GET /x HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n"],
    ["a Host with a bad port", "GET /x HTTP/1.1\r\nHost: x:99999\r\nConnection: close\r\n\r\n"],
    ["an asterisk target", "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"],
    ["no Host at all", "GET /x HTTP/1.1\r\nConnection: close\r\n\r\n"],
  ])("answers %s with a JSON 400", async (_name, request) => {
    const port = await startApp();
    const response = await raw(port, request);
    const [head = "", body = ""] = response.split("\r\n\r\n");
    expect(head.split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request");
    expect(head.toLowerCase()).toContain("content-type: application/json");
    // Chunked or not, the one chunk holds the JSON.
    const json = body.includes("{") ? body.slice(body.indexOf("{"), body.lastIndexOf("}") + 1) : "";
    expect(JSON.parse(json)).toMatchObject({ error: "bad_request" });
  });

  it("answers CONNECT with a JSON 405 instead of dropping the connection", async () => {
    const port = await startApp();
    const r = parse(
      await raw(port, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"),
    );
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe("GET, HEAD");
    expect(r.body.error).toBe("method_not_allowed");
  });

  it.each(["Host", "host", "HOST"])(
    "serves a well-formed request whose header is %s",
    async (name) => {
      const port = await startApp();
      const response = await raw(
        port,
        `GET /x HTTP/1.1\r\n${name}: x\r\nConnection: close\r\n\r\n`,
      );
      expect(response.startsWith("HTTP/1.1 200 OK")).toBe(true);
      expect(response.endsWith("ok")).toBe(true);
    },
  );
});
