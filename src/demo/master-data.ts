import { dayStartMs, msInstant } from "./calendar.ts";
import type { AccountDef } from "./catalog.ts";
import { str } from "./json-writer.ts";
import type { Terms } from "./population.ts";

/** A contact as the Contacts file lists it. */
export interface ContactRecord {
  id: string;
  name: string;
  status: "ACTIVE" | "ARCHIVED";
  isCustomer: boolean;
  isSupplier: boolean;
  firstName?: string | undefined;
  lastName?: string | undefined;
  email?: string | undefined;
  accountNumber?: string | undefined;
  defaultCurrency?: string | undefined;
  salesTerms?: Terms | undefined;
  billTerms?: Terms | undefined;
  mergedToContactId?: string | undefined;
  updatedMs: number;
}

function termsJson(t: Terms): string {
  return `{"Day":${t.day},"Type":"${t.type}"}`;
}

/** The ledger JSON of a contact. */
export function contactJson(c: ContactRecord): string {
  let s = `{"ContactID":"${c.id}"`;
  if (c.mergedToContactId) s += `,"MergedToContactID":"${c.mergedToContactId}"`;
  if (c.accountNumber) s += `,"AccountNumber":${str(c.accountNumber)}`;
  s += `,"ContactStatus":"${c.status}","Name":${str(c.name)}`;
  if (c.firstName) s += `,"FirstName":${str(c.firstName)}`;
  if (c.lastName) s += `,"LastName":${str(c.lastName)}`;
  if (c.email) s += `,"EmailAddress":${str(c.email)}`;
  s += `,"IsSupplier":${c.isSupplier},"IsCustomer":${c.isCustomer}`;
  if (c.defaultCurrency) s += `,"DefaultCurrency":"${c.defaultCurrency}"`;
  if (c.salesTerms || c.billTerms) {
    const parts: string[] = [];
    if (c.billTerms) parts.push(`"Bills":${termsJson(c.billTerms)}`);
    if (c.salesTerms) parts.push(`"Sales":${termsJson(c.salesTerms)}`);
    s += `,"PaymentTerms":{${parts.join(",")}}`;
  }
  s += `,"HasAttachments":false,"UpdatedDateUTC":"${msInstant(c.updatedMs)}"}`;
  return s;
}

/** The ledger JSON of an account of the chart. */
export function accountJson(a: AccountDef, id: string, updatedMs: number): string {
  let s = `{"AccountID":"${id}","Code":"${a.code}","Name":${str(a.name)},"Status":"${a.status ?? "ACTIVE"}","Type":"${a.type}"`;
  s += `,"TaxType":"${a.taxType}","Class":"${a.class}"`;
  if (a.description) s += `,"Description":${str(a.description)}`;
  s += `,"EnablePaymentsToAccount":${a.enablePaymentsToAccount ?? false},"ShowInExpenseClaims":${a.showInExpenseClaims ?? false}`;
  if (a.bank) {
    s += `,"BankAccountNumber":${str(a.bank.number)},"BankAccountType":"${a.bank.bankAccountType}","CurrencyCode":"AUD"`;
  }
  s += `,"SystemAccount":"${a.systemAccount ?? ""}","ReportingCode":"${a.reportingCode}","ReportingCodeName":${str(a.reportingCodeName)}`;
  s += `,"HasAttachments":false,"AddToWatchlist":false,"UpdatedDateUTC":"${msInstant(updatedMs)}"}`;
  return s;
}

/** What varies in Organisation.json. */
export interface OrganisationRecord {
  id: string;
  name: string;
  createdDay: number;
  shortCode: string;
}

/** The organisation: Australian, AUD, Sydney time (the ledger's Windows zone name), FY to 30 June. */
export function organisationJson(o: OrganisationRecord): string {
  return (
    `{"OrganisationID":"${o.id}","Name":${str(o.name)},"LegalName":${str(o.name)},"PaysTax":true,"Version":"AU"` +
    `,"OrganisationType":"COMPANY","BaseCurrency":"AUD","CountryCode":"AU","IsDemoCompany":false,"OrganisationStatus":"ACTIVE"` +
    `,"RegistrationNumber":"51 824 753 556","TaxNumber":"51824753556","FinancialYearEndDay":30,"FinancialYearEndMonth":6` +
    `,"SalesTaxBasis":"CASH","SalesTaxPeriod":"QUARTERLY1","DefaultSalesTax":"Tax Exclusive","DefaultPurchasesTax":"Tax Inclusive"` +
    `,"CreatedDateUTC":"${msInstant(dayStartMs(o.createdDay) + 34_567_000)}","Timezone":"AUSEASTERNSTANDARDTIME"` +
    `,"OrganisationEntityType":"COMPANY","ShortCode":"${o.shortCode}","Class":"STANDARD","Edition":"BUSINESS"}`
  );
}
