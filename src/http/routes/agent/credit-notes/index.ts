export type {
  CreditNoteDrillResponse,
  CreditNotesResponse,
} from "../../../../contracts/agent/credit-notes.ts";
export {
  CreditNoteDrillResponseSchema,
  CreditNotesResponseSchema,
} from "../../../../contracts/agent/credit-notes.ts";
export { registerGetCreditNote } from "./get.ts";
export { registerListCreditNotes } from "./list.ts";
