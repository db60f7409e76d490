import { type PlanName, TOP_UP_PACK } from "./plans.ts";

/**
 * Why automatic top-up could never buy a pack for this billing account, or null when it can
 * (now, or once the subscription is active). Metering buys a pack only while the subscription is
 * `active` and for a seat whose plan has one (`topUpPackFor`), so turning top-up on is pointless,
 * and misleading (every call would still answer `credits_exhausted`), when:
 *
 * - the subscription is over (`canceled`, `trial_ended`): nothing can be charged until it is
 *   reactivated;
 * - neither the account's plan nor any seat's plan has a pack (Free: buying one needs a card).
 *
 * A `trialing` or `past_due` subscription is not refused: packs are bought once it is active (a
 * card on file, the payment settled).
 */
export function autoTopUpBlocker(
  account: { plan: PlanName; status: string },
  seatPlans: readonly PlanName[],
  packs: Readonly<Record<PlanName, number | null>> = TOP_UP_PACK,
): string | null {
  if (account.status === "canceled" || account.status === "trial_ended") {
    return (
      `the subscription is ${account.status}, so nothing can be charged and no top-up pack ` +
      "can be bought: reactivate the subscription first"
    );
  }
  const plans = new Set<PlanName>([account.plan, ...seatPlans]);
  if (![...plans].some((plan) => (packs[plan] ?? 0) > 0)) {
    return (
      `the ${account.plan} plan has no top-up packs (buying one needs a card on file): ` +
      "upgrade to a paid plan first"
    );
  }
  return null;
}
