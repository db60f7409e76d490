import { LRUCache } from "lru-cache";

/**
 * The one cache policy: every in-process cache of the service is a bounded LRU made by
 * `boundedCache`, and this table states each one's bound and what invalidates it. It sits at
 * the top of `src` (like config.ts) because every layer uses it, `domain` included. A cache may
 * only hold what it can tell is still true: each entry is keyed by, or checked against, the
 * version that a write would change.
 */
export const CACHES = {
  /**
   * Verified API keys, by prefix (VerifiedKeyCache). Invalidated: every instance polls the auth
   * epoch (bumped by triggers on any key or organisation change) every 250 ms and drops all
   * entries when it moves; each entry is also re-read after 60 s.
   */
  verifiedKeys: 10_000,
  /**
   * List counts and totals, per (organisation, list, filters) (ListCounts). Invalidated: each
   * entry is kept with the organisation's data epoch it was counted at and answers only a
   * request that read the same epoch.
   */
  listCounts: 10_000,
  /**
   * Last known list sizes (ListSizes): a scheduling hint, never an answer, so a stale entry
   * costs a count, never a wrong page.
   */
  listSizes: 10_000,
  /**
   * Fallback agent notes, per (organisation, local date, data version): the version is in the
   * key, so an import makes new entries and the old ones age out.
   */
  agentNotes: 256,
  /**
   * Parsed forecast snapshot payloads, by snapshot id (getForecast). Never invalidated: a
   * snapshot is never changed once written, and a new forecast is a new snapshot id.
   */
  forecastPayloads: 64,
  /**
   * Forecast weeks as served, per (snapshot id, the reader's sensitive-account redaction)
   * (getForecast). Never invalidated: the snapshot never changes and a change of sensitive
   * flags is a different key.
   */
  forecastWeeks: 64,
  /**
   * Forecast variances (track record), per (organisation, local day, weeks, version)
   * (getForecastVariance). Invalidated: the version in the key moves with every import or
   * baseline run (data version), every recompute (the latest kept forecast's computedAt) and
   * every listed write (data epoch), so an old entry is never hit again and ages out.
   */
  forecastVariance: 256,
  /**
   * The forecast's books and fitted model, per organisation (fitForecastInput): the rows read
   * for a cutoff, and the engine's input and model for one local date. Invalidated: each entry
   * is kept with the organisation's data epoch it was read at (moved by triggers on every table
   * the loader reads, drizzle/0029) and answers only a recompute that read the same epoch, so
   * a write by any instance makes every instance read again (ADR 0008). Bounded by size, not
   * count: an entry weighs the rows it holds (documents, orders, manual items, bank lines), and
   * the 100,000-invoice bench organisation's ~130,000 rows hold about 130 MB of heap, so the
   * bound keeps about 500 MB at most: three organisations of that size, or hundreds of small
   * ones (the daily job reuses each one's rows). An organisation of more rows than the bound is
   * not kept.
   */
  forecastBooks: 500_000,
  /**
   * `Intl.DateTimeFormat`s, per zone, for each constant set of format options (zonedFormat).
   * Never invalidated: a formatter for a zone and options never changes.
   */
  zonedFormats: 512,
} as const;

export type CacheName = keyof typeof CACHES;

/**
 * A new bounded LRU cache of `CACHES[name]` entries (the least recently used goes first);
 * `max` overrides the bound (tests).
 */
export function boundedCache<K extends {}, V extends {}>(
  name: CacheName,
  max: number = CACHES[name],
): LRUCache<K, V> {
  return new LRUCache<K, V>({ max });
}

/**
 * A new LRU cache whose entries together weigh at most `CACHES[name]` by `weigh` (a positive
 * whole number); the least recently used go first, and an entry heavier than the bound is not
 * kept. `max` overrides the bound (tests).
 */
export function weighedCache<K extends {}, V extends {}>(
  name: CacheName,
  weigh: (value: V) => number,
  max: number = CACHES[name],
): LRUCache<K, V> {
  return new LRUCache<K, V>({ maxSize: max, sizeCalculation: weigh });
}
