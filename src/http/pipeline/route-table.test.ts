import { describe, expect, it } from "vitest";
import { RouteTable } from "./route-table.ts";

function table() {
  const t = new RouteTable<string>();
  t.add("/api/agent/bank-accounts", "bank");
  t.add("/api/agent/contacts/summary", "summary");
  t.add("/api/agent/contacts/{id}", "contact");
  t.add("/api/agent/orgs", "orgs");
  t.add("/api/agent/orgs/{orgId}/bank-accounts", "bank (nested)");
  t.add("/api/agent/orgs/{orgId}/contacts/summary", "summary (nested)");
  t.add("/api/agent/orgs/{orgId}/contacts/{id}", "contact (nested)");
  return t;
}

describe("RouteTable", () => {
  it.each([
    ["/api/agent/bank-accounts", "bank", {}],
    ["/api/agent/contacts/summary", "summary", {}],
    ["/api/agent/contacts/con_1", "contact", { id: "con_1" }],
    ["/api/agent/orgs", "orgs", {}],
    ["/api/agent/orgs/org_1/bank-accounts", "bank (nested)", { orgId: "org_1" }],
    ["/api/agent/orgs/org_1/contacts/summary", "summary (nested)", { orgId: "org_1" }],
    ["/api/agent/orgs/org_1/contacts/c.2", "contact (nested)", { orgId: "org_1", id: "c.2" }],
  ])("answers %s with %s", (path, entry, params) => {
    expect(table().match(path)).toEqual({ entry, params });
  });

  it.each([
    "/api/agent/bank-accounts/",
    "/api/agent/contacts/",
    "/api/agent/contacts/a/b",
    "/api/agent/orgs//bank-accounts",
    "/api/agent/orgs/org_1",
    "/api/agent/nothing",
    "/api/agent",
    "",
    "api/agent/bank-accounts",
  ])("answers nothing for %j", (path) => {
    expect(table().match(path)).toBeUndefined();
  });

  it("decodes parameters as Hono does, leaving what does not decode", () => {
    const t = table();
    expect(t.match("/api/agent/contacts/a%20b")?.params).toEqual({ id: "a b" });
    expect(t.match("/api/agent/contacts/a%2Fb")?.params).toEqual({ id: "a/b" });
    expect(t.match("/api/agent/contacts/100%")?.params).toEqual({ id: "100%" });
    expect(t.match("/api/agent/contacts/%E0%A4%A")?.params).toEqual({ id: "%E0%A4%A" });
  });

  it("refuses a route an earlier one already answers, so the first registered always wins", () => {
    const t = new RouteTable<string>();
    t.add("/api/agent/contacts/{id}", "contact");
    expect(() => t.add("/api/agent/contacts/summary", "summary")).toThrow(/already answered/);
    expect(() => t.add("/api/agent/contacts/{other}", "again")).toThrow(/already answered/);
    t.add("/api/agent/contacts/{id}/lines", "lines");
    expect(t.match("/api/agent/contacts/x/lines")).toEqual({ entry: "lines", params: { id: "x" } });
  });

  it("refuses path syntax it does not implement", () => {
    const t = new RouteTable<string>();
    expect(() => t.add("api/agent/x", "x")).toThrow();
    expect(() => t.add("/api/agent//x", "x")).toThrow();
    expect(() => t.add("/api/agent/{id}.json", "x")).toThrow();
  });
});
