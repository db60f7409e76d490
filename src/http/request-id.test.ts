import fc from "fast-check";
import { type Context, Hono } from "hono";
import { describe, expect, it } from "vitest";
import { keepJson, serializeReusing } from "../services/json-reuse.ts";
import type { AppEnv } from "./env.ts";
import { appendMembers, bodyWithId, carriesRequestId, jsonWithId } from "./request-id.ts";

/** A one-route app whose handler builds its response with `build`, under request id `req-1`. */
async function respond(build: (c: Context<AppEnv>) => Response) {
  let built: Response | undefined;
  const app = new Hono<AppEnv>();
  app.get("/x", (c) => {
    c.set("requestId", "req-1");
    built = build(c);
    return built;
  });
  return { res: await app.request("/x"), built };
}

describe("request-id responses", () => {
  it("jsonWithId answers the JSON with the request id, and the caller cannot replace that id", async () => {
    const { res, built } = await respond((c) =>
      jsonWithId(c, { a: 1 }, 201, { "X-Request-Id": "forged", "X-Other": "o" }),
    );
    expect(res.status).toBe(201);
    expect(res.headers.get("x-request-id")).toBe("req-1");
    expect(res.headers.get("x-other")).toBe("o");
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.text()).toBe('{"a":1}');
    expect(built && carriesRequestId(built)).toBe(true);
  });

  it("bodyWithId keeps the caller's headers and adds the id", async () => {
    const { res, built } = await respond((c) =>
      bodyWithId(c, "{}", 401, { "Content-Type": "application/json" }),
    );
    expect(res.status).toBe(401);
    expect(res.headers.get("x-request-id")).toBe("req-1");
    expect(built && carriesRequestId(built)).toBe(true);
  });

  it("a response built any other way is not taken as carrying the id", () => {
    expect(carriesRequestId(new Response("x"))).toBe(false);
    expect(carriesRequestId(Response.json({ a: 1 }))).toBe(false);
  });
});

describe("appendMembers", () => {
  const members = fc.dictionary(
    fc.string().filter((k) => k !== "__proto__"),
    fc.jsonValue(),
    { maxKeys: 3 },
  );

  /** Names that JavaScript orders as written (not array indices, which objects list first). */
  const named = (k: string) => !/^(0|[1-9][0-9]*)$/.test(k);

  it("adds members to an object's JSON as a spread would, text or kept bytes alike", () => {
    fc.assert(
      fc.property(members, members, (body, extra) => {
        const keys = Object.keys(extra);
        fc.pre(keys.length > 0 && keys.every((k) => named(k) && !(k in body)));
        const expected = JSON.stringify({ ...body, ...extra });
        const added = JSON.stringify(extra).slice(1, -1);
        expect(appendMembers(JSON.stringify(body), added)).toBe(expected);
        const bytes = serializeReusing({ kept: keepJson({ ...body }) });
        const asText = (b: string | Uint8Array) =>
          typeof b === "string" ? b : Buffer.from(b).toString("utf8");
        expect(asText(appendMembers(bytes, added))).toBe(JSON.stringify({ kept: body, ...extra }));
      }),
    );
  });

  it("adds to an empty object without a leading comma", () => {
    expect(appendMembers("{}", '"a":1')).toBe('{"a":1}');
    expect(Buffer.from(appendMembers(new Uint8Array(Buffer.from("{}")), '"a":1')).toString()).toBe(
      '{"a":1}',
    );
  });
});
