import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Business, businessProfile, orderIntensity } from "./business.ts";
import { generateDemoLedger } from "./generate.ts";

const NOW = new Date("2026-03-10T01:30:00Z");
const folders: string[] = [];
afterAll(async () => {
  for (const f of folders) await rm(f, { recursive: true, force: true });
});

async function generate(business: Business) {
  const folder = await mkdtemp(join(tmpdir(), `business-${business}-`));
  folders.push(folder);
  const summary = await generateDemoLedger({ seed: 7, now: NOW, folder, invoices: 500, business });
  const invoices = JSON.parse(await readFile(join(folder, "Invoices.json"), "utf8")).Invoices as {
    Type: string;
    DateString?: string;
    Date: string;
  }[];
  // Sales invoices per half of the two-year window (/Date(ms+0000)/).
  const mid = NOW.getTime() - 365 * 86_400_000;
  const sales = invoices.filter((i) => i.Type === "ACCREC");
  const ms = (i: { Date: string }) => Number(/\d+/.exec(i.Date)?.[0]);
  return {
    summary,
    firstYear: sales.filter((i) => ms(i) < mid).length,
    secondYear: sales.filter((i) => ms(i) >= mid).length,
  };
}

describe("the family of demo businesses", () => {
  it("grows, declines and buys on purchase orders as each profile says", async () => {
    const roaster = await generate("roaster");
    const agency = await generate("agency");
    const declining = await generate("declining");
    const wholesaler = await generate("wholesaler");
    expect(agency.secondYear).toBeGreaterThan(agency.firstYear * 1.3);
    expect(declining.secondYear * 1.2).toBeLessThan(declining.firstYear);
    expect(wholesaler.summary.counts.purchaseOrders).toBeGreaterThan(
      roaster.summary.counts.purchaseOrders * 1.2,
    );
    expect(wholesaler.summary.features.openPurchaseOrders).toBeGreaterThan(
      roaster.summary.features.openPurchaseOrders,
    );
    // Exactly the invoices asked for, whatever the business.
    for (const g of [roaster, agency, declining, wholesaler])
      expect(g.firstYear + g.secondYear).toBe(500);
  }, 120_000);

  it("leaves the default demo's order chances untouched and keeps every chance at most 1", () => {
    const roaster = businessProfile("roaster");
    for (const day of [100, 400, 730]) expect(orderIntensity(roaster, day, 5, 0, 730)).toBe(1);
    for (const kind of ["agency", "declining", "seasonal-retailer"] as const) {
      for (const day of [0, 365, 730])
        for (let m = 0; m < 12; m++) {
          const x = orderIntensity(businessProfile(kind), day, m, 0, 730);
          expect(x).toBeGreaterThan(0);
          expect(x).toBeLessThanOrEqual(1);
        }
    }
  });
});
