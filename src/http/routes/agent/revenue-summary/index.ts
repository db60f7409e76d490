export { registerRevenueSummary } from "./get.ts";
