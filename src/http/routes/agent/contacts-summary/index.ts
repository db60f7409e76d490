export { registerContactsSummary } from "./get.ts";
export type { ContactsSummaryResponse } from "./schema.ts";
