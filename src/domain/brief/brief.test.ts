import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rulesBrief } from "./rules-generator.ts";
import { fitHeadline, plainName, slugify, uniqueSlugs } from "./text.ts";
import type { BriefFacts, BriefPayload } from "./types.ts";
import { validateBrief } from "./validate.ts";
import { WITHHELD_SECTION, withholdSensitive } from "./withhold.ts";

const FACTS: BriefFacts = {
  orgName: "Demo Pty Ltd",
  currency: "AUD",
  asOfDate: "2026-03-10",
  cashToday: "48210.55",
  forecast: {
    startingCash: "48210.55",
    endingCash: "52000",
    weeks: Array.from({ length: 13 }, (_, i) => ({
      weekNumber: i + 1,
      weekStart: `2026-03-${String(9 + i).padStart(2, "0")}`,
      closing: i === 5 ? "8200" : "40000",
      inflow: "10000",
      outflow: "9000",
      topOutflow: i === 5 ? { key: "rent", name: "Rent", amount: "6000" } : null,
    })),
    inflowSources: [
      { label: "receivables", amount: "90000" },
      { label: "predicted sales", amount: "40000" },
    ],
  },
  expectedFromCustomers: "36500",
  overdueTotal: "4200",
  overdueCount: 3,
  customers: [
    {
      key: "harbour-cafe",
      name: "Harbour Cafe",
      dueNext13w: "12400",
      overdue: "0",
      overdueCount: 0,
    },
    { key: "bay-club", name: "Bay Club", dueNext13w: "5000", overdue: "4200", overdueCount: 3 },
  ],
  categories: [{ key: "rent", name: "Rent" }],
  notes: [],
  forbiddenNames: ["Secret Client", "Wages and Salaries"],
};

describe("rules generator", () => {
  it("writes the three sections from the facts", () => {
    const b = rulesBrief(FACTS);
    expect(b.mainDriver).toEqual({
      headline: "Harbour Cafe leads expected receipts with AUD 12,400.00",
      bodyMarkdown:
        "**Harbour Cafe** accounts for *34%* of the AUD 36,500.00 customers owe over the next 13 weeks. Receivables make up *69%* of the AUD 130,000.00 forecast to come in over 13 weeks.",
      refs: [{ kind: "customer", key: "harbour-cafe", displayName: "Harbour Cafe" }],
    });
    expect(b.riskSignal).toEqual({
      headline: "Week 6 is the low point at AUD 8,200.00",
      bodyMarkdown:
        "Cash is forecast to bottom out at **AUD 8,200.00** in the week of 2026-03-14, when *Rent* takes AUD 6,000.00.",
      refs: [
        { kind: "week", weekNumber: 6 },
        { kind: "category", key: "rent", displayName: "Rent" },
      ],
    });
    expect(b.recommendedAction).toMatchObject({
      headline: "Chase Bay Club for AUD 4,200.00 overdue",
      refs: [{ kind: "customer", key: "bay-club", displayName: "Bay Club" }],
    });
    expect(validateBrief(b, FACTS)).toEqual({ ok: true, payload: b });
  });

  it("never says 0% of a small share", () => {
    const b = rulesBrief({ ...FACTS, expectedFromCustomers: "11234676.15" });
    expect(b.mainDriver.bodyMarkdown).toMatch(
      /^\*\*Harbour Cafe\*\* accounts for \*under 1%\* of the AUD 11,234,676\.15/,
    );
  });

  it("falls back when there is no forecast and nothing is owed", () => {
    const b = rulesBrief({
      ...FACTS,
      forecast: null,
      customers: [],
      overdueTotal: "0",
      overdueCount: 0,
      expectedFromCustomers: "0",
    });
    expect(b.mainDriver.headline).toBe("No customer receipts are scheduled");
    expect(b.riskSignal.headline).toBe("No forecast risk identified yet");
    expect(b.recommendedAction.refs).toEqual([]);
  });

  it("always passes validation, whatever the facts (names with markdown, long names, negatives)", () => {
    const amount = fc
      .integer({ min: -5_000_000_00, max: 5_000_000_00 })
      .map((c) => (c / 100).toFixed(2));
    const positive = fc.integer({ min: 0, max: 5_000_000_00 }).map((c) => (c / 100).toFixed(2));
    const name = fc.string({ minLength: 0, maxLength: 120 });
    const facts = fc.record({
      customers: fc.array(fc.record({ name, due: positive, overdue: positive, n: fc.nat(40) }), {
        maxLength: 6,
      }),
      weeks: fc.array(
        fc.record({ closing: amount, top: fc.option(fc.record({ name, amount: positive })) }),
        { minLength: 0, maxLength: 13 },
      ),
      overdueTotal: positive,
      overdueCount: fc.nat(500),
      sources: fc.array(
        fc.record({
          label: fc.constantFrom("receivables", "predicted sales", "recurring receipts"),
          amount: positive,
        }),
        { maxLength: 3 },
      ),
    });
    fc.assert(
      fc.property(facts, (f) => {
        const keys = uniqueSlugs(f.customers.map((c) => c.name));
        const catNames = f.weeks.flatMap((w) => (w.top ? [w.top.name] : []));
        const catKeys = uniqueSlugs(catNames);
        const built: BriefFacts = {
          ...FACTS,
          forbiddenNames: [],
          customers: f.customers.map((c, i) => ({
            key: keys[i] ?? "x",
            name: c.name,
            dueNext13w: c.due,
            overdue: c.overdue,
            overdueCount: c.n,
          })),
          categories: catNames.map((n, i) => ({ key: catKeys[i] ?? "x", name: n })),
          overdueTotal: f.overdueTotal,
          overdueCount: f.overdueCount,
          forecast:
            f.weeks.length === 0
              ? null
              : {
                  startingCash: "0",
                  endingCash: "0",
                  inflowSources: f.sources,
                  weeks: f.weeks.map((w, i) => ({
                    weekNumber: i + 1,
                    weekStart: "2026-03-09",
                    closing: w.closing,
                    inflow: "0",
                    outflow: "0",
                    topOutflow: w.top
                      ? {
                          key: catKeys[catNames.indexOf(w.top.name)] ?? "x",
                          name: w.top.name,
                          amount: w.top.amount,
                        }
                      : null,
                  })),
                },
        };
        const v = validateBrief(rulesBrief(built), built);
        if (!v.ok) throw new Error(v.errors.join("; "));
      }),
      { numRuns: 1000 },
    );
  });
});

describe("validateBrief", () => {
  const good = rulesBrief(FACTS);
  const bad = (mutate: (p: Record<string, Record<string, unknown>>) => void) => {
    const p = structuredClone(good) as unknown as Record<string, Record<string, unknown>>;
    mutate(p);
    return validateBrief(p, FACTS);
  };
  it.each([
    [
      "a headline over 80 characters",
      (p: Record<string, Record<string, unknown>>) => {
        (p.mainDriver as Record<string, unknown>).headline = "x".repeat(81);
      },
      "longer than 80",
    ],
    [
      "markdown in a headline",
      (p: Record<string, Record<string, unknown>>) => {
        (p.riskSignal as Record<string, unknown>).headline = "**Bold** move";
      },
      "headline has markdown",
    ],
    [
      "a link in a body",
      (p: Record<string, Record<string, unknown>>) => {
        (p.riskSignal as Record<string, unknown>).bodyMarkdown = "See [this](http://x)";
      },
      "link",
    ],
    [
      "a heading in a body",
      (p: Record<string, Record<string, unknown>>) => {
        (p.riskSignal as Record<string, unknown>).bodyMarkdown = "# Title";
      },
      "heading",
    ],
    [
      "a list in a body",
      (p: Record<string, Record<string, unknown>>) => {
        (p.riskSignal as Record<string, unknown>).bodyMarkdown = "- one\n- two";
      },
      "list",
    ],
    [
      "unpaired bold",
      (p: Record<string, Record<string, unknown>>) => {
        (p.riskSignal as Record<string, unknown>).bodyMarkdown = "**open";
      },
      "unpaired bold",
    ],
    [
      "HTML",
      (p: Record<string, Record<string, unknown>>) => {
        (p.riskSignal as Record<string, unknown>).bodyMarkdown = "<b>x</b>";
      },
      "HTML",
    ],
    [
      "an unknown customer",
      (p: Record<string, Record<string, unknown>>) => {
        (p.mainDriver as Record<string, unknown>).refs = [
          { kind: "customer", key: "ghost", displayName: "Ghost" },
        ];
      },
      "not a known customer",
    ],
    [
      "week 14",
      (p: Record<string, Record<string, unknown>>) => {
        (p.mainDriver as Record<string, unknown>).refs = [{ kind: "week", weekNumber: 14 }];
      },
      "weekNumber",
    ],
    [
      "an unknown ref kind",
      (p: Record<string, Record<string, unknown>>) => {
        (p.mainDriver as Record<string, unknown>).refs = [{ kind: "invoice", key: "x" }];
      },
      "unknown kind",
    ],
    [
      "a missing section",
      (p: Record<string, Record<string, unknown>>) => {
        delete p.recommendedAction;
      },
      "recommendedAction is missing",
    ],
    [
      "an extra field",
      (p: Record<string, Record<string, unknown>>) => {
        p.extra = {};
      },
      "unexpected fields",
    ],
    [
      "a sensitive name",
      (p: Record<string, Record<string, unknown>>) => {
        (p.mainDriver as Record<string, unknown>).bodyMarkdown = "Pay **secret client** first.";
      },
      "sensitive",
    ],
  ])("rejects %s", (_what, mutate, message) => {
    const r = bad(mutate);
    expect(r.ok).toBe(false);
    expect(r.ok ? "" : r.errors.join("; ")).toContain(message);
  });
});

describe("brief text helpers", () => {
  it("strips markdown from names, fits headlines, makes unique slugs", () => {
    expect(plainName("**Bob's** _Cafe_ [HQ]")).toBe("Bob's Cafe HQ");
    expect(plainName("**")).toBe("Unnamed");
    expect(plainName("- 1. - Cafe")).toBe("Cafe");
    expect(plainName("-")).toBe("Unnamed");
    expect(plainName("2.")).toBe("Unnamed");
    const h = fitHeadline((n) => `Chase ${n} for AUD 10.00 overdue`, "A".repeat(200));
    expect(h.length).toBeLessThanOrEqual(80);
    expect(h).toMatch(/^Chase A+… for AUD 10\.00 overdue$/);
    expect(slugify("Café Olé & Co.")).toBe("cafe-ole-co");
    expect(uniqueSlugs(["Acme", "acme", "Acme 2", "ACME"])).toEqual([
      "acme",
      "acme-2",
      "acme-2-2",
      "acme-3",
    ]);
  });
});

describe("withholding names flagged sensitive after the brief was written", () => {
  const section = (headline: string, body: string, refs: BriefPayload["mainDriver"]["refs"]) => ({
    headline,
    bodyMarkdown: body,
    refs,
  });
  const payload: BriefPayload = {
    mainDriver: section("O'Neil & Sons drives March", "**O'Neil & Sons** owes most.", [
      { kind: "customer", key: "o-neil-sons", displayName: "O'Neil & Sons" },
    ]),
    riskSignal: section("Week 6 is the low point", "Rent lands in *week 6*.", [
      { kind: "week", weekNumber: 6 },
    ]),
    recommendedAction: section("Chase Bay Club today", "Chase Bay Club.", [
      { kind: "customer", key: "bay-club", displayName: "Bay*Club" },
    ]),
  };

  it("replaces each section that names one, in any field and either written form", () => {
    // "Bay*Club" is written "Bay Club" in prose (plainName); the ref keeps the raw name.
    const out = withholdSensitive(payload, ["o'neil & sons", "Bay*Club"]);
    expect(out.mainDriver).toEqual(WITHHELD_SECTION);
    expect(out.riskSignal).toBe(payload.riskSignal);
    expect(out.recommendedAction).toEqual(WITHHELD_SECTION);
    expect(validateBrief(out, FACTS).ok).toBe(true);
  });

  it("leaves the brief as it is without such names, or for names under 3 characters", () => {
    expect(withholdSensitive(payload, [])).toBe(payload);
    expect(withholdSensitive(payload, ["Zed Ltd", "  O ", "ee"])).toEqual(payload);
  });
});
