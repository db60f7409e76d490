import type { Role } from "../../db/schema/index.ts";

/**
 * What a signed-in person may do in one organisation of the settings screen. Every page and
 * form asks `can(role, action)`; a user without a membership has no role and can do nothing in
 * that organisation (not even see that it exists).
 *
 * Personal things are not organisation rights: a user's own USER (`crun_`) keys and a partner's
 * keys belong to that user, whatever their role (see `docs/web.md`).
 */
export const WEB_ACTIONS = [
  /** The dashboard: cash today, forecast, daily brief. */
  "dashboard.view",
  /** The organisation's API keys (`cr_live_`) and their audit trails. */
  "keys.view",
  /** Create, rotate and revoke the organisation's API keys. */
  "keys.manage",
  /** Create and revoke one's own USER (`crun_`) keys. */
  "keys.own",
  /**
   * Give one's own USER key READ_SENSITIVE (the separate box). Where the holder is not an owner or
   * admin, a personal key reads without it (`sensitiveApplies`).
   */
  "keys.sensitive",
  /**
   * See every key that reaches the organisation (members' personal keys, partner keys) and revoke
   * any of them for it; set whether personal and partner keys may use READ_SENSITIVE there.
   */
  "keys.govern",
  /** The sensitive flags of the organisation's ledger accounts and contacts. */
  "sensitive.view",
  /** Set and clear sensitive flags. */
  "sensitive.manage",
  /** The partners linked to the organisation. */
  "partners.view",
  /** Link a partner to the organisation, and unlink one. */
  "partners.manage",
  /**
   * The forecast's settings: the runway threshold, custom scenarios, and the burn/revenue
   * inclusion and P&L position of ledger accounts.
   */
  "forecast.manage",
  /** Plan, subscription, trial, credits, automatic top-up. */
  "billing.view",
  /** Change billing settings (automatic top-up; payment details when a processor exists). */
  "billing.manage",
] as const;
export type WebAction = (typeof WEB_ACTIONS)[number];

const VIEW: readonly WebAction[] = [
  "dashboard.view",
  "keys.view",
  "keys.own",
  "sensitive.view",
  "partners.view",
];

/**
 * The rights table. Owner: everything, billing and key governance included. Admin: keys,
 * sensitive flags and partner links, but not billing (the docs: "Admins manage seats and
 * invitations but not billing"; only the owner sees the billing page) nor other people's keys.
 * Member: read-only, plus their own USER keys without READ_SENSITIVE.
 */
export const ROLE_RIGHTS: Readonly<Record<Role, readonly WebAction[]>> = {
  owner: [...WEB_ACTIONS],
  admin: [
    ...VIEW,
    "keys.manage",
    "keys.sensitive",
    "sensitive.manage",
    "partners.manage",
    "forecast.manage",
  ],
  member: VIEW,
};

/** Fail-closed: no role, an unknown role or an unknown action never grants anything. */
export function can(role: Role | null | undefined, action: WebAction): boolean {
  if (!role || !Object.hasOwn(ROLE_RIGHTS, role)) return false;
  return ROLE_RIGHTS[role].includes(action);
}
