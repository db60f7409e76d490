export { registerCohortRetention } from "./retention.ts";
export type { CohortRetentionResponse, CohortSummaryResponse } from "./schema.ts";
export { registerCohortSummary } from "./summary.ts";
