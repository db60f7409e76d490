export { registerDailySummary } from "./get.ts";
export type { DailySummaryResponse } from "./schema.ts";
