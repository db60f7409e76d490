import type { ScenarioAssumptions } from "../../domain/forecasting/types.ts";
import { InvalidParameterError } from "../../services/errors.ts";
import type { WebForm } from "../request.ts";

/** The form's fields, each the `scenario create/edit` flag of the same meaning. */
export const ASSUMPTION_FIELDS = [
  { name: "paymentLagDays", flag: "payment-lag", label: "Payment lag (days, ±365)" },
  { name: "arHaircutPercent", flag: "ar-haircut", label: "Receivables haircut (%)" },
  { name: "arHaircutAfterDays", flag: "ar-haircut-after", label: "Haircut after (days overdue)" },
  {
    name: "pipelineConversionRate",
    flag: "pipeline-conversion",
    label: "Pipeline conversion (0–1)",
  },
  { name: "billStretchDays", flag: "bill-stretch", label: "Bill stretch (days after due)" },
] as const;

type Edit = { [K in keyof ScenarioAssumptions]?: ScenarioAssumptions[K] | null };

/**
 * The assumptions of a scenario form, read as the `scenario` commands read their flags: numbers
 * are plain decimals (`Number()` alone would take "0x10" or "1e3"); an empty field is "not set"
 * (on edit it removes the setting, like `none`). Ranges are then checked by the scenario
 * service (`validateAssumptions`), so the screen and the CLI refuse the same values.
 * @throws InvalidParameterError a malformed number or choice.
 */
export function assumptionsFromForm(
  form: WebForm,
  mode: "create" | "edit",
  current: ScenarioAssumptions = {},
): Edit {
  const out: Edit = {};
  // On edit an emptied field removes a stored setting; one never set stays unset.
  const clears = (key: keyof ScenarioAssumptions) => mode === "edit" && current[key] !== undefined;
  for (const f of ASSUMPTION_FIELDS) {
    const v = (form.get(f.name) ?? "").trim();
    if (v === "") {
      if (clears(f.name)) out[f.name] = null;
      continue;
    }
    if (!/^-?\d+(\.\d+)?$/.test(v)) {
      throw new InvalidParameterError(f.name, `${f.label} must be a number such as 14 or 0.5`);
    }
    out[f.name] = Number(v);
  }
  const basedOn = form.get("basedOn") ?? "";
  if (basedOn !== "") {
    if (basedOn !== "BASE" && basedOn !== "BEST" && basedOn !== "WORST") {
      throw new InvalidParameterError("basedOn", "Based on must be BASE, BEST or WORST");
    }
    out.basedOn = basedOn;
  } else if (clears("basedOn")) {
    out.basedOn = null;
  }
  const timing = form.get("receivableTiming") ?? "";
  if (timing !== "") {
    if (timing !== "history" && timing !== "due") {
      throw new InvalidParameterError(
        "receivableTiming",
        "Receivable timing must be history or due",
      );
    }
    out.receivableTiming = timing;
  } else if (clears("receivableTiming")) {
    out.receivableTiming = null;
  }
  return out;
}

/** The assumptions in words, for the list. */
export function describeAssumptions(a: ScenarioAssumptions): string[] {
  const out: string[] = [];
  if (a.basedOn) out.push(`based on ${a.basedOn}`);
  if (a.paymentLagDays !== undefined) out.push(`customers pay ${a.paymentLagDays} days later`);
  if (a.arHaircutPercent !== undefined)
    out.push(`${a.arHaircutPercent}% off receivables overdue ${a.arHaircutAfterDays ?? 0}+ days`);
  if (a.pipelineConversionRate !== undefined)
    out.push(
      a.pipelineConversionRate === null
        ? "pipeline at each item's probability"
        : `pipeline converts at ${a.pipelineConversionRate}`,
    );
  if (a.billStretchDays !== undefined) out.push(`bills paid ${a.billStretchDays} days after due`);
  if (a.receivableTiming)
    out.push(
      `receivables timed by ${a.receivableTiming === "due" ? "due date" : "payment history"}`,
    );
  return out;
}
