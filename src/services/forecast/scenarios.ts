import { and, asc, eq, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "../../db/client.ts";
import { forecastScenarios, organisations } from "../../db/schema/index.ts";
import { STANDARD_NAMES, validateAssumptions } from "../../domain/forecasting/scenarios.ts";
import type { ScenarioAssumptions, ScenarioKind } from "../../domain/forecasting/types.ts";
import { randomToken } from "../../domain/ids.ts";
import { InvalidParameterError, NotFoundError } from "../errors.ts";

/** A stored scenario. */
export interface Scenario {
  id: string;
  orgId: string;
  kind: ScenarioKind;
  name: string;
  assumptions: ScenarioAssumptions;
  createdAt: Date;
  updatedAt: Date;
}

/** Scenario ids: `scn_` and 20 random characters. */
export const newScenarioId = () => `scn_${randomToken()}`;

/** Creates the organisation's BASE, BEST and WORST scenarios where missing (idempotent). */
export async function ensureStandardScenarios(db: DbOrTx, orgId: string, now: Date): Promise<void> {
  await db
    .insert(forecastScenarios)
    .values(
      (["BASE", "BEST", "WORST"] as const).map((kind) => ({
        id: newScenarioId(),
        orgId,
        kind,
        name: STANDARD_NAMES[kind],
        assumptions: {},
        createdAt: now,
        updatedAt: now,
      })),
    )
    .onConflictDoNothing({
      target: [forecastScenarios.orgId, forecastScenarios.kind],
      where: sql`kind <> 'CUSTOM'`,
    });
}

/** The organisation's scenarios: BASE, BEST, WORST, then custom ones by creation. */
export async function listScenarios(db: DbOrTx, orgId: string): Promise<Scenario[]> {
  const list = await db
    .select()
    .from(forecastScenarios)
    .where(eq(forecastScenarios.orgId, orgId))
    .orderBy(asc(forecastScenarios.createdAt), asc(forecastScenarios.id));
  const order: Record<ScenarioKind, number> = { BASE: 0, BEST: 1, WORST: 2, CUSTOM: 3 };
  return list
    .map((s) => ({ ...s, assumptions: (s.assumptions ?? {}) as ScenarioAssumptions }))
    .sort((a, b) => order[a.kind] - order[b.kind]);
}

/** Every assumption a scenario stores; the type check below fails when one is left out. */
const ASSUMPTION_KEYS = [
  "basedOn",
  "paymentLagDays",
  "arHaircutPercent",
  "arHaircutAfterDays",
  "pipelineConversionRate",
  "billStretchDays",
  "receivableTiming",
] as const satisfies readonly (keyof ScenarioAssumptions)[];
const EVERY_KEY_LISTED: Exclude<
  keyof ScenarioAssumptions,
  (typeof ASSUMPTION_KEYS)[number]
> extends never
  ? true
  : never = true;
void EVERY_KEY_LISTED;

function checkAssumptions(a: ScenarioAssumptions): ScenarioAssumptions {
  const problem = validateAssumptions(a);
  if (problem) throw new InvalidParameterError("assumptions", problem);
  // Only known keys are stored. (receivableTiming was once left out of a hand-written copy, so
  // `--receivable-timing due` was dropped without a word.)
  const out: Record<string, unknown> = {};
  for (const key of ASSUMPTION_KEYS) if (a[key] !== undefined) out[key] = a[key];
  return out as ScenarioAssumptions;
}

/** Creates a CUSTOM scenario: a clone of BASE (or `basedOn`) with overrides. */
export async function createCustomScenario(
  db: Db,
  input: { orgId: string; name: string; assumptions: ScenarioAssumptions; now: Date },
): Promise<Scenario> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 100) {
    throw new InvalidParameterError("name", "name must be 1 to 100 characters");
  }
  const [org] = await db
    .select({ id: organisations.id })
    .from(organisations)
    .where(eq(organisations.id, input.orgId));
  if (!org) throw new NotFoundError("organisation");
  await ensureStandardScenarios(db, input.orgId, input.now);
  const row = {
    id: newScenarioId(),
    orgId: input.orgId,
    kind: "CUSTOM" as const,
    name,
    assumptions: checkAssumptions(input.assumptions),
    createdAt: input.now,
    updatedAt: input.now,
  };
  await db.insert(forecastScenarios).values(row);
  return row;
}

/**
 * Edits a CUSTOM scenario: a new name and/or assumptions merged over the stored ones (`null`
 * removes a setting). Standard scenarios have fixed rules and cannot be edited.
 */
export async function editCustomScenario(
  db: Db,
  input: {
    orgId: string;
    scenarioId: string;
    name?: string;
    assumptions?: { [K in keyof ScenarioAssumptions]?: ScenarioAssumptions[K] | null };
    now: Date;
  },
): Promise<Scenario> {
  const [current] = await db
    .select()
    .from(forecastScenarios)
    .where(
      and(eq(forecastScenarios.orgId, input.orgId), eq(forecastScenarios.id, input.scenarioId)),
    );
  if (!current) throw new NotFoundError("scenario");
  if (current.kind !== "CUSTOM") {
    throw new InvalidParameterError(
      "scenario",
      `${current.kind} has fixed rules; create a custom scenario instead`,
    );
  }
  const merged: Record<string, unknown> = { ...(current.assumptions as object) };
  for (const [k, v] of Object.entries(input.assumptions ?? {})) {
    if (v === undefined) continue;
    // pipelineConversionRate: null is a value (each item's own probability) only when asked for.
    if (v === null && k !== "pipelineConversionRate") delete merged[k];
    else merged[k] = v;
  }
  const name = input.name?.trim() ?? current.name;
  if (name.length === 0 || name.length > 100) {
    throw new InvalidParameterError("name", "name must be 1 to 100 characters");
  }
  const assumptions = checkAssumptions(merged as ScenarioAssumptions);
  await db
    .update(forecastScenarios)
    .set({ name, assumptions, updatedAt: input.now })
    .where(
      and(eq(forecastScenarios.orgId, input.orgId), eq(forecastScenarios.id, input.scenarioId)),
    );
  return { ...current, name, assumptions, updatedAt: input.now };
}

/** Deletes a CUSTOM scenario and its snapshots. */
export async function deleteCustomScenario(
  db: Db,
  input: { orgId: string; scenarioId: string },
): Promise<void> {
  const [current] = await db
    .select({ kind: forecastScenarios.kind })
    .from(forecastScenarios)
    .where(
      and(eq(forecastScenarios.orgId, input.orgId), eq(forecastScenarios.id, input.scenarioId)),
    );
  if (!current) throw new NotFoundError("scenario");
  if (current.kind !== "CUSTOM") {
    throw new InvalidParameterError("scenario", `${current.kind} cannot be deleted`);
  }
  await db
    .delete(forecastScenarios)
    .where(
      and(eq(forecastScenarios.orgId, input.orgId), eq(forecastScenarios.id, input.scenarioId)),
    );
}
