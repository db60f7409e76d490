import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { getJson, testApp } from "../../../../test/helpers/api.ts";

type Operation = {
  operationId: string;
  description: string;
  security?: unknown[];
  parameters?: { name: string; in: string; required?: boolean }[];
  responses: Record<string, { content?: { "application/json": { schema: { $ref?: string } } } }>;
  "x-required-scope"?: string | null;
};
type Doc = {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, { get: Operation }>;
  components: {
    securitySchemes: Record<string, { type: string; scheme: string; description: string }>;
  };
};

describe("GET /api/agent/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document, served without a key", async () => {
    const t = await testApp();
    const r = await getJson<Doc>(t.app, "http://api.example.test/api/agent/openapi.json");
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe("3.1.0");
    const result = await new Validator().validate(r.body as unknown as Record<string, unknown>);
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(r.body.servers).toEqual([
      { url: "http://api.example.test", description: "This server" },
    ]);
    // The document describes itself first, then the routes in their registration order.
    expect(Object.keys(r.body.paths).slice(0, 3)).toEqual([
      "/api/agent/openapi.json",
      "/api/agent/orgs",
      "/api/agent/bank-accounts",
    ]);
  });

  it("documents the bearer scheme and both forms of every organisation route with one schema", async () => {
    const t = await testApp();
    const { body: doc } = await getJson<Doc>(t.app, "/api/agent/openapi.json");
    const bearer = doc.components.securitySchemes.bearerAuth;
    expect(bearer).toMatchObject({ type: "http", scheme: "bearer" });
    expect(bearer?.description).toMatch(/cr_live_<prefix>_<secret>.*crun_<prefix>_<secret>/s);

    const flat = doc.paths["/api/agent/bank-accounts"]?.get;
    const nested = doc.paths["/api/agent/orgs/{orgId}/bank-accounts"]?.get;
    expect(flat && nested).toBeTruthy();
    for (const op of [flat, nested]) {
      expect(op?.["x-required-scope"]).toBe("READ_BANK");
      expect(op?.description).toContain("Required scope: `READ_BANK`");
      expect(op?.security).toEqual([{ bearerAuth: [] }]);
      expect(op?.responses["200"]?.content?.["application/json"].schema.$ref).toBe(
        "#/components/schemas/BankAccountsResponse",
      );
      expect(Object.keys(op?.responses ?? {})).toEqual(
        expect.arrayContaining(["200", "401", "403", "429", "500"]),
      );
    }
    expect(Object.keys(flat?.responses ?? {})).toContain("400"); // org_required
    expect(nested?.parameters).toEqual([
      expect.objectContaining({ name: "orgId", in: "path", required: true }),
    ]);

    const orgs = doc.paths["/api/agent/orgs"]?.get;
    expect(orgs?.["x-required-scope"]).toBeNull();
    expect(orgs?.description).toContain("any valid key");
    expect(orgs?.responses["200"]?.content?.["application/json"].schema.$ref).toBe(
      "#/components/schemas/OrgsResponse",
    );
    expect(doc.paths["/api/agent/openapi.json"]?.get.security).toEqual([]);
  });
});
