import type { BookDocument, Books } from "./books.ts";

/** Hand-built books holding only these documents (and whatever `extra` sets), in Sydney, AUD. */
export const booksOf = (documents: BookDocument[], extra: Partial<Books> = {}): Books => ({
  timezone: "Australia/Sydney",
  baseCurrency: "AUD",
  documents,
  purchaseOrders: [],
  manualItems: [],
  bankLines: [],
  customers: [],
  accounts: [],
  ...extra,
});
