export type { DailySummaryResponse } from "../../../../contracts/agent/daily-summary.ts";
export { registerDailySummary } from "./get.ts";
