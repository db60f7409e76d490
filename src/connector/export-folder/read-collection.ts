import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { z } from "zod";
import { LedgerFormatError, showValue } from "../errors.ts";
import { parseJsonKeepingNumbers } from "../json-numbers.ts";

/** How one collection is laid out in the folder. */
export interface CollectionFile {
  /** Path inside the folder, e.g. `Invoices.json` or `Reports/BankSummary.json`. */
  file: string;
  /** The envelope's array key, e.g. `Invoices`. */
  key: string;
  /** The record's id field, named in errors and checked for duplicates, e.g. `InvoiceID`. */
  idField?: string;
  /** A missing required file is an error; a missing optional one is an empty collection. */
  required: boolean;
}

/**
 * Reads a collection file's envelope: `{ "<key>": [ … ] }` with numbers kept as digit strings.
 * Returns null when an optional file is missing.
 */
export async function readEnvelope(
  folder: string,
  spec: CollectionFile,
): Promise<unknown[] | null> {
  let text: string;
  try {
    text = await readFile(join(folder, spec.file), "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") {
      if (!spec.required) return null;
      throw new LedgerFormatError({ file: spec.file }, `required file is missing from ${folder}`);
    }
    throw new LedgerFormatError({ file: spec.file }, `cannot be read: ${(e as Error).message}`);
  }
  // A UTF-8 byte-order mark is not JSON; some exporters write one.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let body: unknown;
  try {
    body = parseJsonKeepingNumbers(text);
  } catch (e) {
    throw new LedgerFormatError({ file: spec.file }, `invalid JSON: ${(e as Error).message}`);
  }
  const records =
    typeof body === "object" && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)[spec.key]
      : undefined;
  if (!Array.isArray(records)) {
    throw new LedgerFormatError(
      { file: spec.file },
      `expected an object holding the "${spec.key}" array (the ledger API's envelope)`,
    );
  }
  return records;
}

/** `["LineItems", 0, "UnitAmount"]` → `LineItems[0].UnitAmount`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

function valueAt(record: unknown, path: readonly PropertyKey[]): unknown {
  let v = record;
  for (const part of path) {
    if (typeof v !== "object" || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[part];
  }
  return v;
}

/** One sentence for a zod issue; our own schemas already phrase theirs. */
function describeIssue(issue: z.core.$ZodIssue, record: unknown): string {
  if (issue.code === "custom") return issue.message;
  const value = valueAt(record, issue.path);
  if (value === undefined || value === null) return "required";
  if (issue.code === "invalid_type") {
    const expected = issue.expected === "object" ? "an object" : issue.expected;
    return `expected ${expected === "array" ? "an array" : expected}, got ${showValue(value)}`;
  }
  if (issue.code === "invalid_value") {
    return `expected one of ${issue.values.map(String).join(", ")}, got ${showValue(value)}`;
  }
  return `${issue.message}, got ${showValue(value)}`;
}

/**
 * Validates records one by one with `schema` and yields them in pages. The first bad record
 * stops the read with a LedgerFormatError naming file, record index, record id and field.
 * Consumes `records`: each raw record is dropped once validated, so that a large file's raw and
 * validated forms are not both held in memory.
 */
export function* validateRecords<S extends z.ZodType>(
  spec: CollectionFile,
  records: unknown[],
  schema: S,
  pageSize: number,
): Generator<z.output<S>[]> {
  const seen = spec.idField ? new Map<string, number>() : undefined;
  let page: z.output<S>[] = [];
  for (let i = 0; i < records.length; i++) {
    const raw = records[i];
    const rawId =
      spec.idField && typeof raw === "object" && raw !== null
        ? (raw as Record<string, unknown>)[spec.idField]
        : undefined;
    const location = {
      file: spec.file,
      record: `${spec.key}[${i}]`,
      recordId: typeof rawId === "string" && rawId !== "" ? `${spec.idField} ${rawId}` : undefined,
    };
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      throw new LedgerFormatError(location, `expected an object, got ${showValue(raw)}`);
    }
    const result = schema.safeParse(raw);
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new LedgerFormatError(
        { ...location, field: issue && issue.path.length > 0 ? formatPath(issue.path) : undefined },
        issue ? describeIssue(issue, raw) : "invalid record",
      );
    }
    if (seen && typeof rawId === "string") {
      const first = seen.get(rawId);
      if (first !== undefined) {
        throw new LedgerFormatError(
          location,
          `duplicate ${spec.idField}: ${spec.key}[${first}] has the same id`,
        );
      }
      seen.set(rawId, i);
    }
    records[i] = undefined;
    page.push(result.data);
    if (page.length >= pageSize) {
      yield page;
      page = [];
    }
  }
  if (page.length > 0) yield page;
}
