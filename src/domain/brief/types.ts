/** A reference from a brief section to something real (spec: BriefRef). */
export type BriefRef =
  | { kind: "customer"; key: string; displayName: string }
  | { kind: "category"; key: string; displayName: string }
  | { kind: "week"; weekNumber: number };

/** Spec: BriefSection. */
export interface BriefSection {
  headline: string;
  bodyMarkdown: string;
  refs: BriefRef[];
}

/** Spec: DailyBriefPayload. */
export interface BriefPayload {
  mainDriver: BriefSection;
  riskSignal: BriefSection;
  recommendedAction: BriefSection;
}

/** A customer the brief may name (never a sensitive one). */
export interface BriefCustomer {
  /** Slug, unique within the facts. */
  key: string;
  name: string;
  /** Open receivables falling due within the 13 weeks (including overdue), gross, base. */
  dueNext13w: string;
  overdue: string;
  overdueCount: number;
}

/** An account category the brief may name (never a sensitive one). */
export interface BriefCategory {
  key: string;
  name: string;
}

/** A forecast week as the brief sees it. */
export interface BriefWeek {
  /** 1-indexed within the 13-week window. */
  weekNumber: number;
  weekStart: string;
  closing: string;
  inflow: string;
  outflow: string;
  /** The week's largest outflow category that may be named. */
  topOutflow: { key: string; name: string; amount: string } | null;
}

/**
 * What both generators write from. Built by the brief service; sensitive contacts and accounts
 * are left out of every named list (their amounts stay in the totals), and their names are in
 * `forbiddenNames` so that no generator output can carry them.
 */
export interface BriefFacts {
  orgName: string;
  currency: string;
  /** The UTC business day of the brief. */
  asOfDate: string;
  cashToday: string | null;
  forecast: {
    startingCash: string;
    endingCash: string;
    weeks: BriefWeek[];
    /** 13-week inflow by source, largest first: receivables, predicted sales, recurring, … */
    inflowSources: { label: string; amount: string }[];
  } | null;
  /** Open receivables due within 13 weeks (overdue included), all customers. */
  expectedFromCustomers: string;
  overdueTotal: string;
  overdueCount: number;
  /** Nameable customers, by dueNext13w descending. */
  customers: BriefCustomer[];
  categories: BriefCategory[];
  /** Redacted note texts of the insight engine, ranked. */
  notes: string[];
  forbiddenNames: string[];
}
