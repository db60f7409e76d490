import type { Db } from "../../db/client.ts";
import { computeBaselines } from "./compute-baselines.ts";

/**
 * Recomputes an organisation's baselines, insights and summary cache after a successful import.
 * The import has committed, so a failure here must not fail it: it is reported as a process
 * warning and returned; the nightly run or `cashrunway baselines` catches up.
 */
export async function baselinesAfterImport(
  db: Db,
  input: { orgId: string; now: Date; syncRunId: string },
): Promise<{ ok: true } | { ok: false; error: string }> {
  try {
    await computeBaselines(db, { orgId: input.orgId, now: input.now });
    return { ok: true };
  } catch (e) {
    const error = e instanceof Error ? e.message : String(e);
    process.emitWarning(`baselines after import ${input.syncRunId} failed: ${error}`);
    return { ok: false, error };
  }
}
