import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";

/**
 * Compression of agent responses (docs/api.md, "Compression"; docs/operations.md).
 *
 * node:zlib rather than `hono/compress`: that middleware streams through `CompressionStream`,
 * which has no Brotli, and compresses whatever passes; here the body is already one buffer, so
 * one call on the libuv thread pool (off the event loop) compresses it.
 */

export type ContentCoding = "br" | "gzip";

/**
 * Bodies smaller than this go uncompressed: below about a kilobyte the saving is a few hundred
 * bytes, less than the headers, and not worth a trip to the thread pool.
 */
export const COMPRESS_MIN_BYTES = 1024;

/**
 * Brotli quality for responses built per request. The default (11) is an archiver's setting:
 * tens of milliseconds for a 100 KB body. 4 compresses JSON better than gzip's default level in
 * less time (bench/compression.ts measures both).
 */
export const BROTLI_QUALITY = 4;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * The coding to answer with for an `Accept-Encoding` field: Brotli when acceptable, else gzip,
 * else none. A coding's `q=0` refuses it; `*` stands for any coding not listed. When the client
 * weighs them differently, the higher `q` wins; equal weights prefer Brotli (smaller).
 */
export function negotiateEncoding(field: string | undefined): ContentCoding | null {
  if (!field) return null;
  const weights = new Map<string, number>();
  for (const part of field.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    let q = 1;
    for (const param of params) {
      const [k, v] = param.trim().split("=");
      if (k === "q") q = v !== undefined && /^\d(\.\d{0,3})?$/.test(v) ? Number(v) : 0;
    }
    weights.set(name.trim(), q);
  }
  const any = weights.get("*");
  const weight = (coding: string) => weights.get(coding) ?? any ?? 0;
  const br = weight("br");
  const gz = weights.get("gzip") ?? weights.get("x-gzip") ?? any ?? 0;
  if (br > 0 && br >= gz) return "br";
  if (gz > 0) return "gzip";
  return null;
}

/** `body` compressed with `coding`. */
export async function compress(body: Uint8Array, coding: ContentCoding): Promise<Buffer> {
  if (coding === "br") {
    return await brotli(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
      },
    });
  }
  return await gzipAsync(body);
}
