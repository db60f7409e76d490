export type { ContactsSummaryResponse } from "../../../../contracts/agent/contacts-summary.ts";
export { registerContactsSummary } from "./get.ts";
