import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { compress, negotiateEncoding } from "./compression.ts";

describe("negotiateEncoding", () => {
  it.each([
    [undefined, null],
    ["", null],
    ["identity", null],
    ["gzip", "gzip"],
    ["gzip, deflate, br", "br"],
    ["br;q=0.5, gzip", "gzip"],
    ["br;q=0, gzip;q=0", null],
    ["GZIP", "gzip"],
    ["x-gzip", "gzip"],
    ["*", "br"],
    ["*;q=0, gzip", "gzip"],
    ["br;q=nonsense, gzip", "gzip"],
    ["deflate", null],
  ])("%s -> %s", (field, coding) => {
    expect(negotiateEncoding(field)).toBe(coding);
  });
});

describe("compress", () => {
  const body = Buffer.from(
    JSON.stringify({ items: Array.from({ length: 200 }, (_, i) => ({ i })) }),
  );

  it("Brotli decompresses to the same bytes, and is smaller", async () => {
    const packed = await compress(body, "br");
    expect(packed.byteLength).toBeLessThan(body.byteLength);
    expect(brotliDecompressSync(packed).equals(body)).toBe(true);
  });

  it("gzip decompresses to the same bytes, and is smaller", async () => {
    const packed = await compress(body, "gzip");
    expect(packed.byteLength).toBeLessThan(body.byteLength);
    expect(gunzipSync(packed).equals(body)).toBe(true);
  });
});
