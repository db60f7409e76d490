/**
 * PostgreSQL array literals: the text `array_in` reads (`{"a","b"}`), for writes that send a
 * batch as one parameter per column (`unnest($1::text[], …)`).
 *
 * Why not hand node-postgres a JavaScript array: it builds the literal element by element, two
 * regular-expression replacements and several string concatenations each. On the audit and
 * credit-use batches (one row per agent request) that was the largest allocation of the request
 * pipeline, about 3 KB per request (docs/benchmarks.md, "Stop 10"). Here a batch without quotes
 * or backslashes (ids, routes, ISO instants: all of them in practice) is one `join`.
 */

/** `{"a","b",NULL}`: every element quoted, `"` and `\` escaped, null as NULL. */
export function textArray(values: readonly (string | null)[]): string {
  if (values.length === 0) return "{}";
  for (const value of values) {
    if (value === null || value.includes('"') || value.includes("\\")) return escapedArray(values);
  }
  return `{"${values.join('","')}"}`;
}

function escapedArray(values: readonly (string | null)[]): string {
  const elements = values.map((value) =>
    value === null ? "NULL" : `"${value.replace(/["\\]/g, "\\$&")}"`,
  );
  return `{${elements.join(",")}}`;
}

/** `{200,404}`; each value must be a safe integer. */
export function intArray(values: readonly number[]): string {
  for (const value of values) {
    if (!Number.isSafeInteger(value)) throw new RangeError(`not an integer: ${value}`);
  }
  return `{${values.join(",")}}`;
}

/** `{t,f}`. */
export function boolArray(values: readonly boolean[]): string {
  return `{${values.map((value) => (value ? "t" : "f")).join(",")}}`;
}
