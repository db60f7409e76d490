/**
 * A small seeded pseudo-random generator (sfc32 seeded through cyrb128), so that a demo ledger is
 * a pure function of its seed and clock: never Math.random, never the wall clock. The floats it
 * returns drive choices and target sizes only; money is always computed in integer cents.
 */

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** cyrb128: four 32-bit words from a string, well mixed, stable across platforms. */
function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

/** Deterministic random source. `fork(label)` gives an independent stream per concern. */
export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(readonly seedText: string) {
    [this.a, this.b, this.c, this.d] = cyrb128(seedText);
    // Warm up: the first outputs of sfc32 are correlated with the seed words.
    for (let i = 0; i < 15; i++) this.u32();
  }

  /** An independent generator for one concern, so adding draws in one place never shifts another. */
  fork(label: string): Prng {
    return new Prng(`${this.seedText}/${label}`);
  }

  /** 32 random bits as an unsigned integer. */
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error("pick from an empty list");
    return item;
  }

  /** Picks by weight; weights need not sum to 1. */
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, w] of items) total += w;
    let r = this.next() * total;
    for (const [item, w] of items) {
      r -= w;
      if (r < 0) return item;
    }
    const last = items[items.length - 1];
    if (last === undefined) throw new Error("weighted pick from an empty list");
    return last[0];
  }

  /** Standard normal (Box–Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Log-normal around `median` with log-space spread `sigma`. */
  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  /** Exponential with the given mean. */
  exponential(mean: number): number {
    return -mean * Math.log(1 - this.next());
  }

  /** A version-4 shaped GUID made of PRNG bits (lower case, as the ledger returns them). */
  uuid(): string {
    const w0 = this.u32();
    const w1 = this.u32();
    const w2 = this.u32();
    const w3 = this.u32();
    const b = (w: number, shift: number) => HEX[(w >>> shift) & 0xff] ?? "00";
    const version = HEX[((w1 >>> 8) & 0x0f) | 0x40] ?? "40";
    const variant = HEX[((w2 >>> 24) & 0x3f) | 0x80] ?? "80";
    return (
      `${b(w0, 24)}${b(w0, 16)}${b(w0, 8)}${b(w0, 0)}-${b(w1, 24)}${b(w1, 16)}-` +
      `${version}${b(w1, 0)}-${variant}${b(w2, 16)}-${b(w2, 8)}${b(w2, 0)}` +
      `${b(w3, 24)}${b(w3, 16)}${b(w3, 8)}${b(w3, 0)}`
    );
  }

  /** Fisher–Yates in place. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const tmp = items[i] as T;
      items[i] = items[j] as T;
      items[j] = tmp;
    }
    return items;
  }
}
