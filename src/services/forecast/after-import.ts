import type { Db } from "../../db/client.ts";
import { recomputeForecasts } from "./recompute-forecasts.ts";

/**
 * Recomputes an organisation's forecasts after a successful import. The import has committed,
 * so a failure here must not turn it into a failed import: it is reported as a process warning
 * and returned; the daily recompute or `cashrunway forecast recompute` catches up.
 */
export async function recomputeAfterImport(
  db: Db,
  input: { orgId: string; now: Date; syncRunId: string },
): Promise<{ ok: true } | { ok: false; error: string }> {
  try {
    await recomputeForecasts(db, input);
    return { ok: true };
  } catch (e) {
    const error = e instanceof Error ? e.message : String(e);
    process.emitWarning(`forecast recompute after import ${input.syncRunId} failed: ${error}`);
    return { ok: false, error };
  }
}
