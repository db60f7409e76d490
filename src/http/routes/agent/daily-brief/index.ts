export { registerDailyBrief } from "./get.ts";
export type { DailyBriefResponse } from "./schema.ts";
