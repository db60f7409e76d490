import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AuthenticatedKey } from "../../services/context.ts";
import { ServiceError } from "../../services/errors.ts";
import type { MeterAdmission } from "../../services/metering/metering.ts";
import type { AppEnv } from "../env.ts";
import { onError } from "../errors.ts";
import { type MeteringHook, metered } from "./metering.ts";

const KEY = { id: "key_1", prefix: "p", scopes: [] } as unknown as AuthenticatedKey;
const ADMISSION: MeterAdmission = {
  figures: null,
  headers: { "X-Service-Quota-Remaining": "41" },
  burstToken: null,
  creditUseId: null,
};

/** A hook whose admission the test decides by hand, recording the order of events. */
function manualHook(speculative: boolean) {
  const events: string[] = [];
  let decide: (outcome: MeterAdmission | Error) => void = () => {};
  const hook: MeteringHook = {
    speculative: () => speculative,
    admit: () =>
      new Promise<MeterAdmission>((resolve, reject) => {
        events.push("admit started");
        decide = (outcome) => {
          events.push("admission decided");
          if (outcome instanceof Error) reject(outcome);
          else resolve(outcome);
        };
      }),
    settle: async (_ctx, status) => {
      events.push(`settled ${status}`);
    },
  };
  return { hook, events, decide: (o: MeterAdmission | Error) => decide(o) };
}

const REQ = {
  key: KEY,
  org: null,
  routeTemplate: "/data",
  chargesCredit: true,
  requestId: "r1",
  now: new Date("2026-03-02T00:00:00Z"),
};

/**
 * An app whose two routes go through `metered` as the agent routes do: `/data` answers rows
 * (with the admission's headers), `/invalid` fails validation (400).
 */
function appWith(hook: MeteringHook, events: string[]) {
  const app = new Hono<AppEnv>();
  app.use("*", async (c, next) => {
    c.set("requestId", "r1");
    await next();
  });
  app.get("/data", (c) =>
    metered(hook, c, REQ, async () => {
      events.push("handler ran");
      return { rows: [1, 2] };
    }),
  );
  app.get("/invalid", (c) =>
    metered(hook, c, REQ, async () => {
      events.push("handler ran");
      throw new ServiceError("invalid_parameter", "bad");
    }),
  );
  app.onError(onError);
  return app;
}

const settleTicks = () => new Promise((r) => setTimeout(r, 5));

describe("metered()", () => {
  it("admits before the handler runs for a key not in good standing", async () => {
    const { hook, events, decide } = manualHook(false);
    const pending = appWith(hook, events).request("/data");
    await settleTicks();
    expect(events).toEqual(["admit started"]);
    decide(ADMISSION);
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.headers.get("x-service-quota-remaining")).toBe("41");
    expect(events).toEqual(["admit started", "admission decided", "handler ran", "settled 200"]);
  });

  it("runs the handler alongside the admission in good standing, answering once admitted", async () => {
    const { hook, events, decide } = manualHook(true);
    let done = false;
    const pending = Promise.resolve(appWith(hook, events).request("/data")).then((r) => {
      done = true;
      return r;
    });
    await settleTicks();
    expect(events).toEqual(["admit started", "handler ran"]);
    expect(done).toBe(false); // the response waits for the admission
    decide(ADMISSION);
    const res = await pending;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ rows: [1, 2] });
    expect(res.headers.get("x-service-quota-remaining")).toBe("41");
    expect(events.at(-1)).toBe("settled 200");
  });

  it("answers a refusal, not the data, when a speculative admission is refused", async () => {
    const { hook, events, decide } = manualHook(true);
    const pending = appWith(hook, events).request("/data");
    await settleTicks();
    decide(
      new ServiceError(
        "credits_exhausted",
        "No credits left.",
        { retryAfterSeconds: 60 },
        {
          "Retry-After": "60",
        },
      ),
    );
    const res = await pending;
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("60");
    expect(await res.json()).toMatchObject({ error: "credits_exhausted", retryAfterSeconds: 60 });
    expect(events).not.toContain("settled 200"); // nothing admitted, nothing to settle
  });

  it("lets a refusal win over the handler's own 400, as if admission had come first", async () => {
    const { hook, events, decide } = manualHook(true);
    const pending = appWith(hook, events).request("/invalid");
    await settleTicks();
    decide(new ServiceError("rate_limited", "Burst cap.", { retryAfterSeconds: 3 }));
    const res = await pending;
    expect(res.status).toBe(429);
    expect(await res.json()).toMatchObject({ error: "rate_limited" });
  });

  it("settles a speculative 400 that was admitted, so its credit can be given back", async () => {
    const { hook, events, decide } = manualHook(true);
    const pending = appWith(hook, events).request("/invalid");
    await settleTicks();
    decide(ADMISSION);
    const res = await pending;
    expect(res.status).toBe(400);
    expect(events.at(-1)).toBe("settled 400");
  });
});
