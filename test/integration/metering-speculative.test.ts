import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { creditUses } from "../../src/db/schema/index.ts";
import { limitsWith } from "../../src/domain/metering/plans.ts";
import type { MeterRequest } from "../../src/services/metering/metering.ts";
import { get } from "../helpers/api.ts";
import { meteredApp, orgWithKey } from "../helpers/metering.ts";
import { testDriver } from "../helpers/test-db.ts";

const BANK = "/api/agent/bank-accounts";

describe(`speculative handlers under real metering (${testDriver})`, () => {
  it("runs ahead only for a key in good standing, and a refusal still answers as one", async () => {
    const t = await meteredApp({ limits: limitsWith({ burstLimit: 2 }) });
    const { org, key } = await orgWithKey(t.db, { plan: "Wallet" });
    const probe = {
      key: { id: key.id },
      routeTemplate: BANK,
    } as unknown as MeterRequest;

    expect(t.metering.speculative(probe)).toBe(false); // never admitted yet: admit first
    expect((await get(t.app, BANK, key.key)).status).toBe(200);
    expect(t.metering.speculative(probe)).toBe(true);

    const second = await get(t.app, BANK, key.key); // runs alongside its admission
    expect(second.status).toBe(200);
    expect(second.headers.get("x-service-quota-remaining")).not.toBeNull();

    const third = await get(t.app, BANK, key.key); // speculative, refused by the burst cap
    expect(third.status).toBe(429);
    expect(await third.json()).toMatchObject({ error: "rate_limited" });
    expect(t.metering.speculative(probe)).toBe(false); // refused: admitted first from now on

    const fourth = await get(t.app, BANK, key.key);
    expect(fourth.status).toBe(429);

    // Another endpoint of the same key has its own standing.
    expect(t.metering.speculative({ ...probe, routeTemplate: "/api/agent/status" })).toBe(false);

    const [uses] = await t.db
      .select({ n: sql<number>`count(*)::int` })
      .from(creditUses)
      .where(eq(creditUses.orgId, org.id));
    expect(uses?.n).toBe(2); // the refusals used no credit
  });
});
