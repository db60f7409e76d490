import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { testApp } from "../helpers/api.ts";
import { describeMcpContract, type McpSession } from "./mcp-contract.ts";
import type { Served } from "./world.ts";

/**
 * The SDK's own client over Streamable HTTP to the service's /mcp endpoint, authenticated by the
 * key as a bearer token; every response body's raw bytes are kept for the canary scan.
 */
async function httpSession(served: Served, token: string): Promise<McpSession> {
  const chunks: Buffer[] = [];
  const transport = new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: async (url, init) => {
      const res = await fetch(url, init);
      const bytes = Buffer.from(await res.arrayBuffer());
      chunks.push(bytes);
      return new Response(res.status === 204 || res.status === 202 ? null : bytes, {
        status: res.status,
        statusText: res.statusText,
        headers: res.headers,
      });
    },
  });
  const client = new Client({ name: "http-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, received: () => Buffer.concat(chunks), close: () => client.close() };
}

describeMcpContract("MCP over Streamable HTTP at /mcp", httpSession);

describe("/mcp without a valid key", () => {
  it("answers 401 before reading any MCP message", async () => {
    const t = await testApp();
    for (const authorization of [undefined, "Bearer cr_live_nope", "Basic abc"]) {
      const res = await t.app.request("/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(authorization ? { authorization } : {}),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(await res.json()).toEqual({ error: "unauthorized" });
    }
    // Stateless: no session to open a stream on or to end.
    for (const method of ["GET", "DELETE"]) {
      const res = await t.app.request("/mcp", { method });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toContain("POST");
    }
  });
});
