import type { ScenarioAssumptions, ScenarioKind } from "./types.ts";

/**
 * The rules a scenario applies to the same ledger data (docs/forecast.md, "Scenarios"). Every
 * kind reduces to one of these; CUSTOM starts from BASE, BEST or WORST and overrides settings.
 */
export interface ScenarioRules {
  /**
   * Where a receivable without a ledger expected date is placed: `history` = its due date plus
   * the customer's conditional median lateness (collection.ts); `due` = its due date.
   */
  receivableTiming: "history" | "due";
  /** Days added to receivables' dates (BEST −7; CUSTOM payment lag). */
  receivableShiftDays: number;
  /** BEST ("no late payers"): a receivable is placed at the earlier of its expected and due dates. */
  noLatePayers: boolean;
  /** WORST: no receivable before its due date plus its customer's median lateness. */
  customerDelay: boolean;
  /** WORST: receivables overdue by more than this many days are left out as at risk; null = none. */
  atRiskAfterDays: number | null;
  /** Percentage taken off receivables overdue by more than `haircutAfterDays`. */
  haircutPercent: number;
  haircutAfterDays: number;
  /** Pipeline weight override (BEST 1 = every deal closes); null = each item's probability. */
  pipelineConversionRate: number | null;
  /** Days after the due date bills are paid. */
  billStretchDays: number;
}

const BASE_RULES: ScenarioRules = {
  receivableTiming: "history",
  receivableShiftDays: 0,
  noLatePayers: false,
  customerDelay: false,
  atRiskAfterDays: null,
  haircutPercent: 0,
  haircutAfterDays: 0,
  pipelineConversionRate: null,
  billStretchDays: 0,
};

/** The fixed defaults of the three standard scenarios. */
export const STANDARD_RULES: Record<"BASE" | "BEST" | "WORST", ScenarioRules> = {
  BASE: BASE_RULES,
  BEST: {
    ...BASE_RULES,
    receivableTiming: "due",
    receivableShiftDays: -7,
    noLatePayers: true,
    pipelineConversionRate: 1,
  },
  WORST: { ...BASE_RULES, customerDelay: true, atRiskAfterDays: 60 },
};

/** Display names of the standard scenarios. */
export const STANDARD_NAMES: Record<"BASE" | "BEST" | "WORST", string> = {
  BASE: "Base",
  BEST: "Best case",
  WORST: "Worst case",
};

/** The rules of a scenario: the standard ones, or a CUSTOM clone with its overrides applied. */
export function rulesFor(kind: ScenarioKind, assumptions: ScenarioAssumptions = {}): ScenarioRules {
  if (kind !== "CUSTOM") return STANDARD_RULES[kind];
  const base = STANDARD_RULES[assumptions.basedOn ?? "BASE"];
  return {
    ...base,
    receivableShiftDays: base.receivableShiftDays + (assumptions.paymentLagDays ?? 0),
    haircutPercent: assumptions.arHaircutPercent ?? base.haircutPercent,
    haircutAfterDays: assumptions.arHaircutAfterDays ?? base.haircutAfterDays,
    pipelineConversionRate:
      assumptions.pipelineConversionRate === undefined
        ? base.pipelineConversionRate
        : assumptions.pipelineConversionRate,
    billStretchDays: assumptions.billStretchDays ?? base.billStretchDays,
    receivableTiming: assumptions.receivableTiming ?? base.receivableTiming,
  };
}

/** Why custom assumptions are unusable, or null when they are fine. */
export function validateAssumptions(a: ScenarioAssumptions): string | null {
  const int = (v: number | undefined, min: number, max: number) =>
    v === undefined || (Number.isInteger(v) && v >= min && v <= max);
  if (a.basedOn !== undefined && !["BASE", "BEST", "WORST"].includes(a.basedOn))
    return "basedOn must be BASE, BEST or WORST";
  if (!int(a.paymentLagDays, -365, 365))
    return "paymentLagDays must be a whole number of days within ±365";
  if (
    a.arHaircutPercent !== undefined &&
    !(Number.isFinite(a.arHaircutPercent) && a.arHaircutPercent >= 0 && a.arHaircutPercent <= 100)
  )
    return "arHaircutPercent must be between 0 and 100";
  if (!int(a.arHaircutAfterDays, 0, 3650))
    return "arHaircutAfterDays must be a whole number of days from 0";
  if (
    a.pipelineConversionRate !== undefined &&
    a.pipelineConversionRate !== null &&
    !(
      Number.isFinite(a.pipelineConversionRate) &&
      a.pipelineConversionRate >= 0 &&
      a.pipelineConversionRate <= 1
    )
  )
    return "pipelineConversionRate must be between 0 and 1";
  if (!int(a.billStretchDays, 0, 365))
    return "billStretchDays must be a whole number of days from 0 to 365";
  if (
    a.receivableTiming !== undefined &&
    a.receivableTiming !== "history" &&
    a.receivableTiming !== "due"
  )
    return "receivableTiming must be history or due";
  return null;
}
