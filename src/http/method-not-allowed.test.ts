import { describe, expect, it } from "vitest";
import { allowedMethodsOf } from "./method-not-allowed.ts";

describe("allowedMethodsOf", () => {
  const allowed = allowedMethodsOf([
    { method: "ALL", path: "/api/agent/*" },
    { method: "GET", path: "/api/agent/bank-accounts" },
    { method: "GET", path: "/api/agent/orgs/:orgId/contacts/:id" },
    { method: "GET", path: "/settings/keys" },
    { method: "POST", path: "/settings/keys" },
    { method: "POST", path: "/settings/keys/:prefix/revoke" },
    { method: "GET", path: "/files/*" },
  ]);

  it.each([
    ["/api/agent/bank-accounts", ["GET", "HEAD"]],
    ["/api/agent/orgs/org_1/contacts/c.1", ["GET", "HEAD"]],
    ["/settings/keys", ["GET", "HEAD", "POST"]],
    ["/settings/keys/abc/revoke", ["POST"]],
    ["/files/a/b", ["GET", "HEAD"]],
  ])("serves %s with %j", (path, methods) => {
    expect(allowed(path)).toEqual(methods);
  });

  it.each([
    "/api/agent/no-such-route",
    "/api/agent/bank-accounts/",
    "/api/agent/orgs/org_1/contacts",
    "/api/agent/orgs/org_1/contacts/a/b",
    "/settings/keys/abc",
    "/api/agentXbank-accounts",
  ])("knows nothing at %s (middleware is not a route)", (path) => {
    expect(allowed(path)).toEqual([]);
  });
});
