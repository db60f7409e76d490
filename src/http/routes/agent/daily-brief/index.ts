export type { DailyBriefResponse } from "../../../../contracts/agent/daily-brief.ts";
export { registerDailyBrief } from "./get.ts";
