import { describe, expect, it } from "vitest";
import type { DbOrTx } from "../../db/client.ts";
import { ANALYZE_AFTER_ROWS, analyzeAfterLargeImport } from "./analyze-after-import.ts";

/** A stand-in database that records the SQL text it is asked to run. */
function recordingDb() {
  const statements: string[] = [];
  const db = {
    execute: async (query: { queryChunks: { value: string[] }[] }) => {
      statements.push(query.queryChunks.flatMap((c) => c.value).join(""));
      return { rows: [] };
    },
  } as unknown as DbOrTx;
  return { db, statements };
}

describe("analyzeAfterLargeImport", () => {
  it("leaves statistics alone after a small import", async () => {
    const { db, statements } = recordingDb();
    const ran = await analyzeAfterLargeImport(db, {
      invoices: { read: 50_000, written: ANALYZE_AFTER_ROWS - 2 },
      contacts: { read: 10, written: 1 },
    });
    expect(ran).toBe(false);
    expect(statements).toEqual([]);
  });

  it("analyzes the projection tables once an import writes the threshold, summed over kinds", async () => {
    const { db, statements } = recordingDb();
    const ran = await analyzeAfterLargeImport(db, {
      invoices: { read: 9_000, written: ANALYZE_AFTER_ROWS - 1 },
      contacts: { read: 10, written: 1 },
    });
    expect(ran).toBe(true);
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/^ANALYZE /);
    expect(statements[0]).toContain("cash_items");
    expect(statements[0]).toContain("cash_item_lines");
    expect(statements[0]).toContain("payments");
  });
});
