import { LRUCache } from "lru-cache";

/**
 * The one cache policy: every in-process cache of the service is a bounded LRU made by
 * `boundedCache`, and this table states each one's bound and what invalidates it. A cache may
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
