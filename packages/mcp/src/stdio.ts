import { createRequire } from "node:module";
import { CashRunwayClient, DEFAULT_BASE_URL } from "@cashrunway/client";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { HttpBackend } from "./http-backend.ts";
import { createAgentMcpServer, MCP_VERSION } from "./server.ts";
import { buildAgentTools, type OpenApiDocument } from "./tools.ts";

/**
 * The agent API's OpenAPI document as @cashrunway/client ships it (checked in, and kept equal
 * to the one the service serves by a test): the tools' input and output schemas come from it.
 */
export function packagedDocument(): OpenApiDocument {
  return createRequire(import.meta.url)("@cashrunway/client/openapi.json") as OpenApiDocument;
}

/** The stdio server's settings, from its environment. */
export interface StdioConfig {
  token: string;
  url: string;
  orgId: string | undefined;
}

/** Reads CASHRUNWAY_TOKEN (required), CASHRUNWAY_URL and CASHRUNWAY_ORG_ID. */
export function stdioConfig(env: NodeJS.ProcessEnv): StdioConfig {
  const token = env.CASHRUNWAY_TOKEN?.trim();
  if (!token) {
    throw new Error(
      "CASHRUNWAY_TOKEN is not set: create an API key in Cash Runway (Settings → API keys) and " +
        "pass it in the MCP server's environment.",
    );
  }
  return {
    token,
    url: env.CASHRUNWAY_URL?.trim() || DEFAULT_BASE_URL,
    orgId: env.CASHRUNWAY_ORG_ID?.trim() || undefined,
  };
}

/** The MCP server over the HTTP API, not yet connected to a transport. */
export function createStdioServer(config: StdioConfig): Server {
  const client = new CashRunwayClient({
    token: config.token,
    baseUrl: config.url,
    orgId: config.orgId,
    // A tool call may wait out a short burst limit; spent credits are reported, not waited for.
    retry: { maxRetries: 1, maxWaitSeconds: 10 },
    userAgent: `cashrunway-mcp/${MCP_VERSION}`,
  });
  return createAgentMcpServer({
    tools: buildAgentTools(packagedDocument()),
    backend: new HttpBackend(client),
  });
}

/** `cashrunway-mcp`: serves MCP on stdin/stdout until stdin closes. */
export async function runStdio(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let config: StdioConfig;
  try {
    config = stdioConfig(env);
  } catch (err) {
    process.stderr.write(`cashrunway-mcp: ${(err as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  const server = createStdioServer(config);
  await server.connect(new StdioServerTransport());
  process.stderr.write(`cashrunway-mcp ${MCP_VERSION}: serving ${config.url} on stdio\n`);
}
