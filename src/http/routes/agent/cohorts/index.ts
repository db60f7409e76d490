export type {
  CohortRetentionResponse,
  CohortSummaryResponse,
} from "../../../../contracts/agent/cohorts.ts";
export { registerCohortRetention } from "./retention.ts";
export { registerCohortSummary } from "./summary.ts";
