import { sql } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { boolArray, intArray, textArray } from "../../src/db/array-literal.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";

/** What PostgreSQL reads from a literal, as JSON (the same text on both drivers). */
async function parsed(literal: string, type: "text[]" | "int[]" | "boolean[]"): Promise<unknown> {
  const { db } = await getTestDatabase();
  const result = await db.execute(
    sql`select array_to_json(${literal}::${sql.raw(type)})::text as j`,
  );
  const [row] = (result as unknown as { rows: { j: string | null }[] }).rows;
  return JSON.parse(row?.j ?? "null");
}

/** Text PostgreSQL can hold: anything but NUL. */
const pgText = fc.string({ unit: "binary" }).map((s) => s.replaceAll("\u0000", ""));

describe(`array literals read back by PostgreSQL (${testDriver})`, () => {
  it("keeps every text value, quotes, backslashes, braces, commas, spaces and NULL included", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(pgText, { nil: null }), { maxLength: 8 }), async (a) => {
        expect(await parsed(textArray(a), "text[]")).toEqual(a);
      }),
      { numRuns: 150 },
    );
  });

  it.each([
    [["plain", "NULL", "null", "", " padded ", "a,b", "{x}", 'q"uote', "back\\slash"]],
    [["/api/agent/bank-accounts", "2026-03-02T03:04:05.000Z", "key_5kq2m8x3c9d1v7b4n6ht"]],
    [[]],
  ])("keeps %j", async (values) => {
    expect(await parsed(textArray(values), "text[]")).toEqual(values);
  });

  it("keeps integers and booleans", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 8 }),
        fc.array(fc.boolean(), { maxLength: 8 }),
        async (ints, bools) => {
          expect(await parsed(intArray(ints), "int[]")).toEqual(ints);
          expect(await parsed(boolArray(bools), "boolean[]")).toEqual(bools);
        },
      ),
      { numRuns: 50 },
    );
  });

  it("refuses a number that is not an integer", () => {
    expect(() => intArray([1, 2.5])).toThrow(RangeError);
  });
});
