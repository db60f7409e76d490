import { z } from "zod";
import type { DbOrTx } from "../../db/client.ts";
import {
  billingAccounts,
  memberships,
  organisations,
  PLANS,
  type Plan,
  seats,
  users,
} from "../../db/schema/index.ts";
import { newId } from "../../domain/ids.ts";
import { isIanaTimezone } from "../../domain/timezones.ts";
import { InvalidParameterError } from "../errors.ts";
import { findUserByEmail } from "../users/create-user.ts";

export const TRIAL_DAYS = 14;

/** The ISO 4217 codes this runtime knows (Node 20's ICU: 160 or so). `ZZZ` is not a currency. */
const ISO_CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf("currency"));
export const TRIAL_PLAN: Plan = "Wallet";

export const CreateOrganisationInputSchema = z.object({
  name: z.string().trim().min(1).max(200),
  baseCurrency: z
    .string()
    .regex(/^[A-Z]{3}$/, "must be a 3-letter ISO currency code")
    .refine((code) => ISO_CURRENCIES.has(code), "must be an ISO 4217 currency code such as AUD")
    .default("AUD"),
  timezone: z
    .string()
    .refine(isIanaTimezone, "must be an IANA timezone such as Australia/Sydney")
    .default("Australia/Sydney"),
  /** Without a plan: a 14-day Wallet trial, as a new sign-up gets. */
  plan: z.enum(PLANS).optional(),
  ownerEmail: z.string().email().optional(),
  financialYearEndMonth: z.number().int().min(1).max(12).default(6),
  financialYearEndDay: z.number().int().min(1).max(31).default(30),
});
export type CreateOrganisationInput = z.input<typeof CreateOrganisationInputSchema>;

export interface CreatedOrganisation {
  id: string;
  ownerUserId: string;
  billingAccountId: string;
  plan: Plan;
  subscriptionStatus: "trialing" | "active";
}

/**
 * Creates an organisation, its owner (a new user, or the existing user with `ownerEmail`), and a
 * billing account on `plan` holding the owner's seat. Runs in one transaction.
 */
export async function createOrganisation(
  db: DbOrTx,
  rawInput: CreateOrganisationInput,
  now: Date,
): Promise<CreatedOrganisation> {
  const parsed = CreateOrganisationInputSchema.safeParse(rawInput);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidParameterError(
      String(issue?.path[0] ?? "input"),
      `${issue?.path.join(".")}: ${issue?.message}`,
    );
  }
  const input = parsed.data;
  return db.transaction(async (tx) => {
    const orgId = newId("org");
    const existing = input.ownerEmail ? await findUserByEmail(tx, input.ownerEmail) : undefined;
    const ownerUserId = existing?.id ?? newId("usr");
    if (!existing) {
      const email = input.ownerEmail ?? `owner+${orgId}@cashrunway.local`;
      await tx
        .insert(users)
        .values({ id: ownerUserId, email, name: `${input.name} owner`, createdAt: now });
    }
    const trial = input.plan === undefined;
    const plan: Plan = input.plan ?? TRIAL_PLAN;
    const billingAccountId = newId("bil");
    await tx.insert(billingAccounts).values({
      id: billingAccountId,
      name: input.name,
      ownerUserId,
      plan,
      subscriptionStatus: trial ? "trialing" : "active",
      trialEndsAt: trial ? new Date(now.getTime() + TRIAL_DAYS * 86_400_000) : null,
      autoTopUp: false,
      createdAt: now,
    });
    await tx.insert(organisations).values({
      id: orgId,
      name: input.name,
      baseCurrency: input.baseCurrency,
      timezone: input.timezone,
      financialYearEndMonth: input.financialYearEndMonth,
      financialYearEndDay: input.financialYearEndDay,
      billingAccountId,
      createdAt: now,
    });
    await tx
      .insert(memberships)
      .values({ orgId, userId: ownerUserId, role: "owner", createdAt: now });
    await tx.insert(seats).values({ billingAccountId, userId: ownerUserId, plan, createdAt: now });
    return {
      id: orgId,
      ownerUserId,
      billingAccountId,
      plan,
      subscriptionStatus: trial ? "trialing" : "active",
    };
  });
}
