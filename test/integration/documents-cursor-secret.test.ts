import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { type Config, DEV_CURSOR_SECRET } from "../../src/config.ts";
import { getJson } from "../helpers/api.ts";
import { testDriver } from "../helpers/test-db.ts";
import { docsWorld, qs } from "./documents-helpers.ts";

/*
 * Cursors are sealed with the deployment's CURSOR_SECRET: instances sharing it open each
 * other's cursors; a cursor sealed under another secret is not ours (400 invalid_cursor), on
 * every list, even for the same organisation, list and filters.
 */

const LISTS = [
  "/api/agent/invoices?status=PAID",
  "/api/agent/bills?contactId=c0000000-0000-4000-8000-000000000007",
  "/api/agent/credit-notes?status=AUTHORISED",
  "/api/agent/purchase-orders?dateFrom=2024-01-01",
  "/api/agent/contacts?type=both",
  "/api/agent/contacts?sort=revenue_desc",
];

const SECRET_B = "b".repeat(40);
const SECRET_C = "c".repeat(40);

interface Page {
  nextCursor: string | null;
  [rows: string]: unknown;
}

describe(`cursors and CURSOR_SECRET (${testDriver})`, () => {
  it("opens under the secret that sealed it, on any instance; under another, 400 invalid_cursor", async () => {
    const w = await docsWorld({ flag: false });
    const appWith = (secret: string | undefined) =>
      createApp({ ...w.t.deps, config: { ...w.t.deps.config, CURSOR_SECRET: secret } as Config });
    // The test app has no CURSOR_SECRET (dev): the public default, as the explicit one here.
    const dev = w.t.app;
    const devExplicit = appWith(DEV_CURSOR_SECRET);
    const b1 = appWith(SECRET_B);
    const b2 = appWith(SECRET_B);
    const c = appWith(SECRET_C);

    for (const list of LISTS) {
      const sep = list.includes("?") ? "&" : "?";
      const first = async (app: typeof dev) => {
        const r = await getJson<Page>(app, `${list}${sep}limit=1`, w.sensitive);
        expect(r.status, r.text).toBe(200);
        expect(r.body.nextCursor, `${list}: needs a second page`).toEqual(expect.any(String));
        return r.body.nextCursor as string;
      };
      const next = (app: typeof dev, cursor: string) =>
        getJson<Page>(app, `${list}${sep}limit=1${qs({ cursor }).replace("?", "&")}`, w.sensitive);

      // Same secret: another instance opens it and answers the same second page.
      const fromB = await first(b1);
      const onB1 = await next(b1, fromB);
      const onB2 = await next(b2, fromB);
      expect([onB1.status, onB2.status], onB2.text).toEqual([200, 200]);
      expect({ ...onB2.body, nextCursor: null }).toEqual({ ...onB1.body, nextCursor: null });
      const fromDev = await first(dev);
      expect((await next(devExplicit, fromDev)).status).toBe(200);

      // Another secret: refused, whichever way round.
      for (const [app, cursor] of [
        [c, fromB],
        [dev, fromB],
        [b1, fromDev],
      ] as const) {
        const r = await next(app, cursor);
        expect([r.status, r.body.error, r.body.parameter], `${list}: ${r.text}`).toEqual([
          400,
          "invalid_cursor",
          "cursor",
        ]);
      }
    }
  });
});
