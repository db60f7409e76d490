import { describe, expect, it } from "vitest";
import { CACHES } from "../../cache.ts";
import type { CursorPosition } from "../../domain/pagination/cursor.ts";
import { AUTO_PAGINATE_CAP } from "../../domain/pagination/params.ts";
import {
  bindCursor,
  ListCounts,
  type ListPaging,
  type ListRequest,
  ListSizes,
  listPaging,
  loadListPage,
  planListPage,
} from "./paging.ts";

/*
 * loadListPage over an in-memory list: which queries run, what totalCount says and what the
 * answer waits for, at the edges of the count shortcut (a fetch holding the whole set needs no
 * count) and of the size hint (a list known to fit is fetched alone).
 */

interface Row {
  id: string;
  key: string;
}

const binding = bindCursor("invoices", "org_a", { status: null });

/** A list of `n` rows (in the list's order) and a log of the queries run against it. */
function fakeList(n: number, opts: { count?: () => Promise<number> } = {}) {
  const all = Array.from({ length: n }, (_, i) => {
    const id = String(n - i).padStart(6, "0");
    return { id, key: `2024-01-01-${id}` };
  });
  const calls: string[] = [];
  return {
    calls,
    queries: {
      page: async (after: CursorPosition | undefined, limit: number) => {
        calls.push("page");
        const start = after ? all.findIndex((r) => r.id === after.id) + 1 : 0;
        return all.slice(start, start + limit);
      },
      position: (r: Row) => ({ key: r.key, id: r.id }),
      count: () => {
        calls.push("count");
        return opts.count ? opts.count() : Promise.resolve(all.length);
      },
      countWithTotals: async () => {
        calls.push("totals");
        return { totalCount: all.length, totals: { sum: all.length } };
      },
    },
  };
}

type FakeList = ReturnType<typeof fakeList>;

/** One request against `list`; `paging` carries the sizes learnt by earlier requests. */
async function load(list: FakeList, req: ListRequest, paging: ListPaging = freshPaging()) {
  list.calls.length = 0;
  const plan = planListPage(req, binding, paging.cursorKey);
  const loaded = await loadListPage(req, plan, binding, paging, list.queries);
  const counted = await loaded.counted;
  return { page: loaded.page, counted, calls: [...list.calls] };
}

const freshPaging = () => listPaging("paging test secret");
/** A count that never answers: what the answer must not wait for. */
const never = () => new Promise<number>(() => {});

const auto: ListRequest = { limit: 50, autoPaginate: true, totals: false };
const paged = (limit: number, cursor?: string): ListRequest => ({
  limit,
  cursor,
  autoPaginate: false,
  totals: false,
});

describe("loadListPage: totalCount from the fetch when it holds the whole set", () => {
  it("autoPaginate of exactly 5,000 rows: totalCount 5,000 without waiting for a count", async () => {
    // Unknown size: the count starts alongside, but the answer does not wait for it.
    const paging = freshPaging();
    const first = await load(fakeList(AUTO_PAGINATE_CAP, { count: never }), auto, paging);
    expect([first.page.rows.length, first.page.truncated, first.page.nextCursor]).toEqual([
      5_000,
      false,
      null,
    ]);
    expect(first.counted).toEqual({ totalCount: 5_000 });
    // Known to fit now: no count query at all.
    const again = await load(fakeList(AUTO_PAGINATE_CAP), auto, paging);
    expect([again.counted.totalCount, again.calls]).toEqual([5_000, ["page"]]);
  });

  it("autoPaginate of 5,001 rows: the first 5,000, truncated, totalCount from the count", async () => {
    const paging = freshPaging();
    for (let i = 0; i < 2; i++) {
      const r = await load(fakeList(AUTO_PAGINATE_CAP + 1), auto, paging);
      expect([r.page.rows.length, r.page.truncated, r.counted.totalCount]).toEqual([
        5_000,
        true,
        5_001,
      ]);
      // Unknown, then known to overflow: counted alongside the fetch (started first).
      expect(r.calls).toEqual(["count", "page"]);
    }
  });

  it("a list that grew past one fetch since last seen is counted after its fetch", async () => {
    const paging = freshPaging();
    await load(fakeList(AUTO_PAGINATE_CAP), auto, paging);
    const grown = await load(fakeList(AUTO_PAGINATE_CAP + 1), auto, paging);
    expect([grown.page.truncated, grown.counted.totalCount]).toEqual([true, 5_001]);
    expect(grown.calls).toEqual(["page", "count"]);
    // …and is counted alongside from then on.
    expect((await load(fakeList(AUTO_PAGINATE_CAP + 1), auto, paging)).calls).toEqual([
      "count",
      "page",
    ]);
  });

  it("an empty result: totalCount 0, paged or not; no count once known", async () => {
    for (const req of [auto, paged(50)]) {
      const paging = freshPaging();
      for (const expected of [["count", "page"], ["page"]]) {
        const r = await load(fakeList(0), req, paging);
        expect([r.page.rows, r.page.nextCursor, r.counted]).toEqual([[], null, { totalCount: 0 }]);
        expect(r.calls).toEqual(expected);
      }
    }
  });

  it("a first page that is also the last (up to limit rows): totalCount from the fetch", async () => {
    for (const n of [1, 49, 50]) {
      const paging = freshPaging();
      const first = await load(fakeList(n, { count: never }), paged(50), paging);
      expect([first.page.rows.length, first.page.nextCursor, first.counted.totalCount]).toEqual([
        n,
        null,
        n,
      ]);
      expect((await load(fakeList(n), paged(50), paging)).calls).toEqual(["page"]);
    }
  });

  it("a first page with more behind it (limit + 1 rows): a cursor, and the count", async () => {
    const r = await load(fakeList(51), paged(50));
    expect(r.page.rows).toHaveLength(50);
    expect(r.page.nextCursor).toEqual(expect.any(String));
    expect([r.counted.totalCount, r.calls]).toEqual([51, ["count", "page"]]);
  });

  it("a page after a cursor always counts, the last one included, known size or not", async () => {
    const paging = freshPaging();
    const list = fakeList(60);
    await load(list, paged(100), paging); // learns: 60 rows fit in a page of 100
    const first = await load(list, paged(50), paging);
    const last = await load(list, paged(50, first.page.nextCursor ?? undefined), paging);
    expect([last.page.rows.length, last.page.nextCursor, last.counted.totalCount]).toEqual([
      10,
      null,
      60,
    ]);
    expect(last.calls.sort()).toEqual(["count", "page"]);
  });

  it("totals=true: one aggregate gives the count and the totals, never a separate count", async () => {
    for (const req of [
      { ...auto, totals: true },
      { ...paged(50), totals: true },
    ]) {
      const r = await load(fakeList(10), req);
      expect(r.counted).toEqual({ totalCount: 10, totals: { sum: 10 } });
      expect(r.calls.sort()).toEqual(["page", "totals"]);
    }
  });

  it("a failed count never becomes an unhandled rejection; it is reported where awaited", async () => {
    const failing = () => Promise.reject(new Error("count failed"));
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      // Started alongside a fetch that held the whole set: never awaited at all.
      const small = await load(fakeList(10, { count: failing }), auto);
      expect(small.counted).toEqual({ totalCount: 10 });
      // Needed: the caller does other work (or fails) before awaiting it.
      const paging = freshPaging();
      const list = fakeList(AUTO_PAGINATE_CAP + 1, { count: failing });
      const plan = planListPage(auto, binding, paging.cursorKey);
      const loaded = await loadListPage(auto, plan, binding, paging, list.queries);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
      await expect(loaded.counted).rejects.toThrow("count failed");
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});

describe("ListSizes", () => {
  it("keeps a size per organisation, list and filters, and stays bounded", () => {
    const sizes = new ListSizes();
    const other = bindCursor("invoices", "org_a", { status: ["PAID"] });
    sizes.set(binding, 3);
    expect([sizes.get(binding), sizes.get(other)]).toEqual([3, undefined]);
    expect(sizes.get(bindCursor("bills", "org_a", { status: null }))).toBeUndefined();
    expect(sizes.get(bindCursor("invoices", "org_b", { status: null }))).toBeUndefined();
    for (let i = 0; i < CACHES.listSizes; i++) {
      sizes.set(bindCursor("invoices", `org_${i}`, {}), i);
    }
    // Full: the least recently used went first (a forgotten size is only a hint lost).
    expect(sizes.get(binding)).toBeUndefined();
    expect(sizes.get(bindCursor("invoices", `org_${CACHES.listSizes - 1}`, {}))).toBe(
      CACHES.listSizes - 1,
    );
  });
});

describe("loadListPage: counts kept per data epoch", () => {
  /** `fakeList` whose organisation has a data epoch the test moves; epoch reads are logged. */
  function epochList(n: number) {
    const list = fakeList(n);
    const state = { epoch: 7, moveDuringCount: false };
    const count = list.queries.count;
    const queries = {
      ...list.queries,
      epoch: async () => {
        list.calls.push("epoch");
        return state.epoch;
      },
      count: async () => {
        const c = await count();
        if (state.moveDuringCount) state.epoch++; // a write committed while it counted
        return c;
      },
    };
    return { list: { calls: list.calls, queries }, state };
  }

  it("counts once per epoch: later pages at that epoch reuse the count", async () => {
    const { list, state } = epochList(120);
    const paging = freshPaging();
    const first = await load(list, paged(50), paging);
    expect([first.counted.totalCount, first.calls]).toEqual([
      120,
      ["epoch", "page", "count", "epoch"],
    ]);
    const next = await load(list, paged(50, first.page.nextCursor ?? undefined), paging);
    expect([next.counted.totalCount, next.calls]).toEqual([120, ["page", "epoch"]]);
    // A write moves the epoch: counted again (and kept at the new epoch).
    state.epoch++;
    expect((await load(list, paged(50), paging)).calls).toEqual([
      "epoch",
      "page",
      "count",
      "epoch",
    ]);
    expect((await load(list, paged(50), paging)).calls).toEqual(["epoch", "page"]);
  });

  it("keeps nothing counted while the epoch moved", async () => {
    const { list, state } = epochList(120);
    const paging = freshPaging();
    state.moveDuringCount = true;
    await load(list, paged(50), paging);
    state.moveDuringCount = false;
    expect((await load(list, paged(50), paging)).calls).toContain("count");
  });

  it("keeps totals apart from plain counts, and lists and organisations apart", async () => {
    const { list } = epochList(120);
    const paging = freshPaging();
    await load(list, paged(50), paging);
    const withTotals = await load(list, { ...paged(50), totals: true }, paging);
    expect(withTotals.calls).toContain("totals");
    expect((await load(list, { ...paged(50), totals: true }, paging)).calls).not.toContain(
      "totals",
    );
    expect(paging.counts.size).toBe(2);
  });
});

describe("ListCounts", () => {
  it("answers only the epoch an entry was counted at, and stays bounded", () => {
    const counts = new ListCounts();
    counts.set("k", 3, { totalCount: 9 });
    expect(counts.get("k", 3)).toEqual({ totalCount: 9 });
    expect(counts.get("k", 4)).toBeUndefined();
    for (let i = 0; i < CACHES.listCounts; i++) counts.set(`k${i}`, 1, { totalCount: i });
    expect(counts.size).toBeLessThanOrEqual(CACHES.listCounts);
    expect(counts.get("k", 3)).toBeUndefined(); // the least recently used went first
  });
});
