export { registerDailySummary } from "./get.ts";
export type { DailySummaryResponse } from "./schema.ts";
export { AgentNoteSchema, notesForAgentField } from "./schema.ts";
