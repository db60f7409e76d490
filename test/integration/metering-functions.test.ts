import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { rowsOf, testApp } from "../helpers/api.ts";
import { testDriver } from "../helpers/test-db.ts";

const SOURCE = new URL("../../src/db/functions/metering.sql", import.meta.url);
const MIGRATION = new URL("../../drizzle/0021_metering_final_functions.sql", import.meta.url);

/** The functions the credit store calls: the whole of admission, refund and the read paths. */
const CURRENT = [
  "metering_admit_batch",
  "metering_billing",
  "metering_refund",
  "metering_state",
  "metering_window",
];

describe(`the credit-rule SQL functions (${testDriver})`, () => {
  it("are installed from their one source file: the migration ends with it verbatim", () => {
    const source = readFileSync(SOURCE, "utf8");
    const migration = readFileSync(MIGRATION, "utf8");
    expect(migration.endsWith(source)).toBe(true);
    for (const name of CURRENT) {
      expect(source.match(new RegExp(`FUNCTION ${name}\\(`, "g"))).toHaveLength(1);
    }
  });

  it("leave exactly the current functions in the database, no dead ones", async () => {
    const { db } = await testApp();
    const rows = rowsOf<{ name: string }>(
      await db.execute(
        "select p.proname as name from pg_proc p join pg_namespace n on n.oid = p.pronamespace " +
          "where n.nspname = 'public' and p.proname like 'metering\\_%' order by 1",
      ),
    );
    expect(rows.map((r) => r.name)).toEqual(CURRENT);
  });
});
