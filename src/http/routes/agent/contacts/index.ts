export type {
  ContactDrillResponse,
  ContactsListResponse,
} from "../../../../contracts/agent/contacts.ts";
export {
  ContactDrillResponseSchema,
  ContactsListResponseSchema,
} from "../../../../contracts/agent/contacts.ts";
export { registerGetContact } from "./get.ts";
export { registerListContacts } from "./list.ts";
