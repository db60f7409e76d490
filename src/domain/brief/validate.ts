import type { BriefFacts, BriefPayload, BriefRef, BriefSection } from "./types.ts";

/** The rules every stored brief meets, whichever generator wrote it (docs/insights.md). */
export const BRIEF_RULES = {
  headlineMax: 80,
  bodyMax: 1000,
  refsMax: 5,
  weeks: 13,
} as const;

export const SECTION_NAMES = ["mainDriver", "riskSignal", "recommendedAction"] as const;

/** Characters that would make a headline markdown (or a list item, a heading, a link, HTML). */
const HEADLINE_FORBIDDEN = /[*_`#[\]<>|~\\\n\r]/;
const LIST_START = /^\s*([-+]\s|\d+[.)]\s)/;

/**
 * Problems of a body: only paragraphs with **bold** and *italic* (or _italic_) are allowed.
 * No headings, quotes, lists, code, links, images, HTML, tables or strikethrough; emphasis
 * markers must pair up.
 */
function bodyProblems(body: string): string[] {
  const out: string[] = [];
  if (body.trim() === "") out.push("is empty");
  if (body.length > BRIEF_RULES.bodyMax)
    out.push(`is longer than ${BRIEF_RULES.bodyMax} characters`);
  for (const line of body.split("\n")) {
    if (/^\s*#/.test(line)) out.push("has a heading");
    if (/^\s*>/.test(line)) out.push("has a block quote");
    if (LIST_START.test(line) || /^\s*\*\s/.test(line)) out.push("has a list");
  }
  if (/`/.test(body)) out.push("has code");
  if (/[[\]]/.test(body)) out.push("has a link or image");
  if (/<\/?[A-Za-z!]/.test(body)) out.push("has HTML");
  if (/~~/.test(body)) out.push("has strikethrough");
  if (/\|/.test(body)) out.push("has a table");
  const plain = body.replace(/\\[*_\\]/g, "");
  const bold = plain.match(/\*\*/g)?.length ?? 0;
  if (bold % 2) out.push("has unpaired bold markers");
  const singles = plain.replace(/\*\*/g, "").match(/\*/g)?.length ?? 0;
  if (singles % 2) out.push("has unpaired italic markers");
  const underscores = plain.match(/_/g)?.length ?? 0;
  if (underscores % 2) out.push("has unpaired underscores");
  return [...new Set(out)];
}

function refProblems(ref: unknown, facts: BriefFacts): string[] {
  if (typeof ref !== "object" || ref === null) return ["is not an object"];
  const r = ref as Record<string, unknown>;
  const keys = Object.keys(r).sort().join(",");
  if (r.kind === "week") {
    if (keys !== "kind,weekNumber") return ["week refs carry exactly kind and weekNumber"];
    const n = r.weekNumber;
    const max = facts.forecast
      ? Math.min(BRIEF_RULES.weeks, facts.forecast.weeks.length)
      : BRIEF_RULES.weeks;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > max) {
      return [`weekNumber must be a whole number from 1 to ${max}`];
    }
    return [];
  }
  if (r.kind === "customer" || r.kind === "category") {
    if (keys !== "displayName,key,kind")
      return [`${r.kind} refs carry exactly kind, key and displayName`];
    if (typeof r.key !== "string" || typeof r.displayName !== "string")
      return ["key and displayName must be strings"];
    const known = r.kind === "customer" ? facts.customers : facts.categories;
    const match = known.find((k) => k.key === r.key);
    if (!match) return [`${r.kind} "${r.key}" is not a known ${r.kind}`];
    if (r.displayName.trim() === "") return ["displayName is empty"];
    return [];
  }
  return [`unknown kind ${JSON.stringify(r.kind)}`];
}

function sectionProblems(name: string, value: unknown, facts: BriefFacts): string[] {
  if (typeof value !== "object" || value === null) return [`${name} is missing`];
  const s = value as Record<string, unknown>;
  const out: string[] = [];
  const keys = Object.keys(s).sort().join(",");
  if (keys !== "bodyMarkdown,headline,refs")
    out.push(`${name} must have exactly headline, bodyMarkdown and refs`);
  const h = s.headline;
  if (typeof h !== "string" || h.trim() === "") out.push(`${name}.headline is empty`);
  else {
    if (h.length > BRIEF_RULES.headlineMax)
      out.push(`${name}.headline is longer than ${BRIEF_RULES.headlineMax} characters`);
    if (HEADLINE_FORBIDDEN.test(h) || LIST_START.test(h)) out.push(`${name}.headline has markdown`);
  }
  if (typeof s.bodyMarkdown !== "string") out.push(`${name}.bodyMarkdown is not a string`);
  else for (const p of bodyProblems(s.bodyMarkdown)) out.push(`${name}.bodyMarkdown ${p}`);
  if (!Array.isArray(s.refs)) out.push(`${name}.refs is not an array`);
  else {
    if (s.refs.length > BRIEF_RULES.refsMax)
      out.push(`${name}.refs has more than ${BRIEF_RULES.refsMax} entries`);
    s.refs.forEach((r, i) => {
      for (const p of refProblems(r, facts)) out.push(`${name}.refs[${i}] ${p}`);
    });
  }
  // Names of sensitive contacts and accounts never appear, in any field.
  const text = JSON.stringify(value).toLowerCase();
  for (const forbidden of facts.forbiddenNames) {
    const f = forbidden.trim().toLowerCase();
    if (f.length >= 3 && text.includes(f)) out.push(`${name} names a sensitive contact or account`);
  }
  return out;
}

export type BriefValidation = { ok: true; payload: BriefPayload } | { ok: false; errors: string[] };

/**
 * Checks a payload (from either generator, or from anywhere) against the brief rules and the
 * facts it was written from: exactly the three sections; headlines 1–80 characters without
 * markdown; bodies of plain paragraphs with bold and italic only; at most 5 refs per section,
 * each pointing at a customer or category of the facts or at a week 1–13 of the forecast; no
 * sensitive name anywhere.
 */
export function validateBrief(payload: unknown, facts: BriefFacts): BriefValidation {
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    return { ok: false, errors: ["payload is not an object"] };
  }
  const p = payload as Record<string, unknown>;
  const errors: string[] = [];
  const extra = Object.keys(p).filter((k) => !(SECTION_NAMES as readonly string[]).includes(k));
  if (extra.length) errors.push(`unexpected fields: ${extra.join(", ")}`);
  for (const name of SECTION_NAMES) errors.push(...sectionProblems(name, p[name], facts));
  if (errors.length) return { ok: false, errors };
  const section = (v: unknown): BriefSection => {
    const s = v as BriefSection;
    return {
      headline: s.headline,
      bodyMarkdown: s.bodyMarkdown,
      refs: s.refs.map((r: BriefRef) => ({ ...r })),
    };
  };
  return {
    ok: true,
    payload: {
      mainDriver: section(p.mainDriver),
      riskSignal: section(p.riskSignal),
      recommendedAction: section(p.recommendedAction),
    },
  };
}
