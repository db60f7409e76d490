import { BRIEF_RULES } from "./validate.ts";

/**
 * A name made safe for brief text: markdown and HTML characters removed, whitespace collapsed.
 * Refs keep the real name in displayName; only the prose uses this.
 */
export function plainName(name: string): string {
  const cleaned = name
    .replace(/[*_`#[\]<>|~\\]/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    // A leading "-", "+" or "1." would read as a list item once text follows it.
    .replace(/^(?:(?:[-+]|\d+[.)])(?:\s+|$))+/, "");
  return cleaned === "" ? "Unnamed" : cleaned;
}

/**
 * `make(name)` with `name` shortened (ending "…") so that the result fits the headline limit.
 * The template's own text must leave room for at least a few characters of the name.
 */
export function fitHeadline(make: (name: string) => string, name: string): string {
  const full = make(plainName(name));
  if (full.length <= BRIEF_RULES.headlineMax) return full;
  const clean = plainName(name);
  const room = BRIEF_RULES.headlineMax - (full.length - clean.length) - 1;
  return make(`${clean.slice(0, Math.max(1, room)).trimEnd()}…`).slice(0, BRIEF_RULES.headlineMax);
}

/** The name a ref shows: the real name, or "Unnamed" when it is blank. */
export function displayName(name: string): string {
  return name.trim() === "" ? plainName(name) : name;
}

/** A URL-ish slug: lower case ASCII letters and digits joined by dashes. */
export function slugify(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return slug === "" ? "item" : slug;
}

/** Slugs for a list of names, unique within it (`acme`, `acme-2`, …), in order. */
export function uniqueSlugs(names: readonly string[]): string[] {
  const used = new Set<string>();
  return names.map((n) => {
    const base = slugify(n);
    let slug = base;
    for (let i = 2; used.has(slug); i++) slug = `${base}-${i}`;
    used.add(slug);
    return slug;
  });
}
