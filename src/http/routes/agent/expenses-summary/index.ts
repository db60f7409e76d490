export { registerExpensesSummary } from "./get.ts";
