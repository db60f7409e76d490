import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describeMcpContract, type McpSession } from "./mcp-contract.ts";
import type { Served } from "./world.ts";

const REPO = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The SDK's own client driving `cashrunway-mcp` (packages/mcp, run from its sources) over stdio,
 * against the real application served on a loopback port with real metering.
 */
async function stdioSession(served: Served, token: string): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--conditions=@cashrunway/source", "--import", "tsx", "packages/mcp/src/main.ts"],
    cwd: REPO,
    env: {
      PATH: process.env.PATH ?? "",
      CASHRUNWAY_TOKEN: token,
      CASHRUNWAY_URL: served.url,
    },
    stderr: "pipe",
  });
  const client = new Client({ name: "stdio-test", version: "1.0.0" });
  await client.connect(transport);
  // The transport parses stdout itself; a second listener sees the same raw chunks.
  const child = (transport as unknown as { _process: ChildProcess })._process;
  const chunks: Buffer[] = [];
  child.stdout?.on("data", (chunk: Buffer) => chunks.push(chunk));
  return {
    client,
    received: () => Buffer.concat(chunks),
    close: () => client.close(),
  };
}

describeMcpContract("cashrunway-mcp over stdio", stdioSession);
