export { registerRevenueSummary } from "./get.ts";
export type { RevenueSummaryResponse } from "./schema.ts";
export { RevenueSummaryResponseSchema } from "./schema.ts";
