import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import {
  agentOpenApiDocument,
  CLIENT_OPENAPI_FILE,
  CLIENT_SCHEMA_FILE,
  documentText,
  schemaText,
} from "../../scripts/agent-openapi.ts";

/*
 * The client's checked-in OpenAPI document and generated types are what `npm run
 * client:generate` writes now: a route schema changed without regenerating fails here, so the
 * packages (client, MCP tool schemas, CLI) cannot drift from the API.
 */
describe("@cashrunway/client is generated from the API's own document", () => {
  it("packages/client/openapi.json is the document the service serves (without servers)", async () => {
    const document = await agentOpenApiDocument();
    const onDisk = await readFile(CLIENT_OPENAPI_FILE, "utf8");
    expect(onDisk === documentText(document), "run `npm run client:generate` and commit").toBe(
      true,
    );
  });

  it("packages/client/src/schema.ts is openapi-typescript's output for it", async () => {
    const document = JSON.parse(await readFile(CLIENT_OPENAPI_FILE, "utf8"));
    const onDisk = await readFile(CLIENT_SCHEMA_FILE, "utf8");
    expect(
      onDisk === (await schemaText(document)),
      "run `npm run client:generate` and commit",
    ).toBe(true);
  });
});
