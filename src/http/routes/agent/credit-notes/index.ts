export { registerGetCreditNote } from "./get.ts";
export { registerListCreditNotes } from "./list.ts";
export type { CreditNoteDrillResponse, CreditNotesResponse } from "./schema.ts";
export { CreditNoteDrillResponseSchema, CreditNotesResponseSchema } from "./schema.ts";
