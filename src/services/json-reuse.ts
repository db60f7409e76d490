/**
 * JSON kept, as UTF-8 bytes, for values that never change once built, so a response that
 * carries one again neither serialises nor encodes it again.
 *
 * Why: a stored forecast's `weeks` are most of its response (every week lists its item ids), and
 * serialising and encoding them dominated the forecast route's own CPU (figures:
 * docs/benchmarks.md, "Optimisations in the code"); the snapshot behind them never changes once
 * written (get-forecast.ts keeps it parsed).
 *
 * The rules that make it safe: a value handed to `keepJson` must be plain JSON data (objects,
 * arrays and primitives only: no Dates, class instances or `toJSON`, whose text could change or
 * depend on where they sit), and it is frozen, deeply, so it cannot change after its bytes were
 * taken. The bytes themselves are shared: nothing may write into a body this module returns.
 */
type Bytes = Uint8Array<ArrayBuffer>;

const kept = new WeakMap<object, Bytes>();
const utf8 = (text: string): Bytes => new Uint8Array(Buffer.from(text, "utf8"));

/**
 * Takes (once) and keeps the JSON of `value` as UTF-8, freezing it; returns the same value.
 * Throws a TypeError for anything but plain JSON data.
 */
export function keepJson<T extends object>(value: T): T {
  if (!kept.has(value)) {
    freezePlainData(value);
    kept.set(value, utf8(JSON.stringify(value)));
  }
  return value;
}

/**
 * The bytes of `JSON.stringify(body)`: that string itself when nothing in it was kept, else
 * its UTF-8 bytes, with the kept bytes of the body (or of any top-level property value) that
 * went through `keepJson` copied in rather than serialised again.
 */
export function serializeReusing(body: unknown): string | Bytes {
  if (typeof body !== "object" || body === null) return JSON.stringify(body);
  const whole = kept.get(body);
  if (whole !== undefined) return whole;
  if (Array.isArray(body) || typeof (body as { toJSON?: unknown }).toJSON === "function") {
    return JSON.stringify(body);
  }
  const record = body as Record<string, unknown>;
  const keys = Object.keys(record);
  let reuses = false;
  for (const key of keys) {
    const value = record[key];
    if (typeof value === "object" && value !== null && kept.has(value)) {
      reuses = true;
      break;
    }
  }
  if (!reuses) return JSON.stringify(body);
  // What JSON.stringify does for a plain object: its own enumerable keys in order, each value
  // serialised (a value's toJSON is given its key), and those that serialise to nothing
  // (undefined, functions) left out.
  const chunks: Uint8Array[] = [];
  let text = "{";
  let first = true;
  for (const key of keys) {
    const value = record[key];
    const bytes = typeof value === "object" && value !== null ? kept.get(value) : undefined;
    if (bytes) {
      text += `${first ? "" : ","}${JSON.stringify(key)}:`;
      chunks.push(Buffer.from(text, "utf8"), bytes);
      text = "";
    } else {
      // `{"key":value}` or `{}`, as JSON.stringify writes this one property.
      const member = JSON.stringify({ [key]: value }).slice(1, -1);
      if (member === "") continue;
      text += `${first ? "" : ","}${member}`;
    }
    first = false;
  }
  chunks.push(Buffer.from(`${text}}`, "utf8"));
  let length = 0;
  for (const chunk of chunks) length += chunk.byteLength;
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

function freezePlainData(value: unknown): void {
  if (typeof value !== "object" || value === null) return;
  const proto = Object.getPrototypeOf(value);
  const plain = Array.isArray(value) || proto === Object.prototype || proto === null;
  if (!plain || typeof (value as { toJSON?: unknown }).toJSON === "function") {
    throw new TypeError("keepJson takes plain JSON data only (no Dates, classes or toJSON)");
  }
  Object.freeze(value);
  for (const child of Object.values(value)) freezePlainData(child);
}
