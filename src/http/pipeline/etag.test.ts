import { describe, expect, it } from "vitest";
import { entityTag, ifNoneMatchHits, viewOf } from "./etag.ts";

describe("entityTag", () => {
  const view = viewOf("/api/agent/bank-accounts", ["READ_BANK"]);

  it("is weak, short and the same for the same body as string or bytes", () => {
    const tag = entityTag('{"a":1}', view);
    expect(tag).toMatch(/^W\/"[A-Za-z0-9_-]{22}"$/);
    expect(entityTag(Buffer.from('{"a":1}'), view)).toBe(tag);
  });

  it("changes with the body, the route and the key's scopes", () => {
    const tag = entityTag('{"a":1}', view);
    expect(entityTag('{"a":2}', view)).not.toBe(tag);
    expect(entityTag('{"a":1}', viewOf("/api/agent/bills", ["READ_BANK"]))).not.toBe(tag);
    expect(
      entityTag('{"a":1}', viewOf("/api/agent/bank-accounts", ["READ_BANK", "READ_SENSITIVE"])),
    ).not.toBe(tag);
  });

  it("does not depend on the order scopes are listed in", () => {
    expect(viewOf("/r", ["B", "A"])).toBe(viewOf("/r", ["A", "B"]));
  });
});

describe("ifNoneMatchHits", () => {
  const tag = 'W/"abc"';
  it.each([
    ['W/"abc"', true],
    ['"abc"', true],
    ['"x", W/"abc"', true],
    ["*", true],
    ['W/"abd"', false],
    ["abc", false],
    ["", false],
  ])("%s -> %s", (field, hits) => {
    expect(ifNoneMatchHits(field, tag)).toBe(hits);
  });

  it("no field never hits", () => {
    expect(ifNoneMatchHits(undefined, tag)).toBe(false);
  });
});
