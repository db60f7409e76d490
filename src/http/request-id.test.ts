import { type Context, Hono } from "hono";
import { describe, expect, it } from "vitest";
import { keepJson } from "../services/json-reuse.ts";
import type { AppEnv } from "./env.ts";
import { jsonWithId } from "./request-id.ts";

/** A one-route app whose handler builds its response with `build`, under request id `req-1`. */
async function respond(build: (c: Context<AppEnv>) => Response) {
  const app = new Hono<AppEnv>();
  app.get("/x", (c) => {
    c.set("requestId", "req-1");
    return build(c);
  });
  return await app.request("/x");
}

describe("jsonWithId", () => {
  it("answers the JSON with the request id, and the caller cannot replace that id", async () => {
    const res = await respond((c) =>
      jsonWithId(c, { a: 1 }, 201, { "X-Request-Id": "forged", "X-Other": "o" }),
    );
    expect(res.status).toBe(201);
    expect(res.headers.get("x-request-id")).toBe("req-1");
    expect(res.headers.get("x-other")).toBe("o");
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.text()).toBe('{"a":1}');
  });

  it("serialises a body holding kept JSON exactly as JSON.stringify would", async () => {
    const body = { a: "é", weeks: keepJson([{ n: 1 }, { n: 2 }]), b: null };
    const res = await respond((c) => jsonWithId(c, body, 200));
    expect(await res.text()).toBe(JSON.stringify(body));
  });
});
