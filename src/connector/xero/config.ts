import { z } from "zod";

/** The shortest LEDGER_TOKEN_KEY accepted: 32 characters. */
export const LEDGER_TOKEN_KEY_MIN_LENGTH = 32;

/**
 * The token key of a dev process without LEDGER_TOKEN_KEY: fixed and public (it is in this file),
 * so that dev instances and tests read each other's sealed tokens. Refused in prod.
 */
export const DEV_LEDGER_TOKEN_KEY = "cashrunway ledger tokens, dev only";

/**
 * The read-only granular scopes (mapping.md §2.3): what the sync reads and nothing more.
 * `offline_access` brings the refresh token.
 */
export const DEFAULT_LEDGER_SCOPES = [
  "offline_access",
  "accounting.settings.read",
  "accounting.contacts.read",
  "accounting.invoices.read",
  "accounting.payments.read",
  "accounting.banktransactions.read",
  "accounting.reports.banksummary.read",
  "accounting.reports.balancesheet.read",
].join(" ");

/**
 * The LEDGER_* variables (part of the service's one configuration schema, src/config.ts). The
 * endpoints default to Xero's; pointing the four URLs at the contract fake
 * (`cashrunway fake-ledger`) is all a local run needs. docs/ledger.md describes each.
 */
export const LEDGER_CONFIG_FIELDS = {
  LEDGER_AUTHORIZE_URL: z.url().default("https://login.xero.com/identity/connect/authorize"),
  LEDGER_TOKEN_URL: z.url().default("https://identity.xero.com/connect/token"),
  LEDGER_REVOKE_URL: z.url().default("https://identity.xero.com/connect/revocation"),
  /** `/connections` and `/api.xro/2.0/…` live under it. */
  LEDGER_API_URL: z.url().default("https://api.xero.com"),
  LEDGER_CLIENT_ID: z.string().min(1).optional(),
  /** Sent as HTTP Basic to the token endpoint; never logged. */
  LEDGER_CLIENT_SECRET: z.string().min(1).optional(),
  /** Default: `/ledger/callback` on the service's own address. */
  LEDGER_REDIRECT_URI: z.url().optional(),
  LEDGER_SCOPES: z.string().min(1).default(DEFAULT_LEDGER_SCOPES),
  /** Seals ledger tokens at rest (AES-256-GCM); required in prod. Never shown. */
  LEDGER_TOKEN_KEY: z
    .string()
    .min(LEDGER_TOKEN_KEY_MIN_LENGTH, `must be at least ${LEDGER_TOKEN_KEY_MIN_LENGTH} characters`)
    .optional(),
  /** Verifies `x-xero-signature` on POST /webhooks/ledger; webhooks are refused without it. */
  LEDGER_WEBHOOK_KEY: z.string().min(1).optional(),
  LEDGER_SYNC_MINUTES: z.coerce.number().int().min(1).max(1440).default(30),
  /** Hours between full sweeps (everything re-read, for what If-Modified-Since misses). */
  LEDGER_FULL_SYNC_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 30)
    .default(24),
  /** Ledger calls per tenant and day (Xero: 5,000; 1,000 on the Starter tier). */
  LEDGER_DAILY_BUDGET: z.coerce.number().int().min(1).default(5000),
};

/** Variables whose values are never shown in a configuration error. */
export const LEDGER_SECRET_VARIABLES = [
  "LEDGER_CLIENT_SECRET",
  "LEDGER_TOKEN_KEY",
  "LEDGER_WEBHOOK_KEY",
] as const;

const LedgerSettingsSchema = z.object(LEDGER_CONFIG_FIELDS);
export type LedgerSettings = z.output<typeof LedgerSettingsSchema>;
