import { money } from "../money.ts";
import { formatMoney } from "../summaries/narrative.ts";
import { displayName, fitHeadline, plainName } from "./text.ts";
import type { BriefFacts, BriefPayload, BriefRef, BriefSection, BriefWeek } from "./types.ts";

/*
 * The rules tier of the daily brief: fixed decisions over the facts, so the same facts always
 * give the same brief. Every branch's output meets `validateBrief` (property-tested).
 */

/** A share as brief text: `34%`, or `under 1%` rather than a misleading `0%`. */
const pctOf = (part: string, whole: string) => {
  const w = money(whole);
  if (w.isZero()) return "0%";
  const pct = money(part).div(w).times(100);
  return pct.gt(0) && pct.lt(0.5) ? "under 1%" : `${Math.round(pct.toNumber())}%`;
};

/** What shapes the inflow side: the customer owed most over the 13 weeks, else the sources. */
function mainDriver(f: BriefFacts): BriefSection {
  const m = (v: string) => formatMoney(v, f.currency);
  const top = f.customers.find((c) => money(c.dueNext13w).gt(0));
  const sources = f.forecast?.inflowSources.filter((s) => money(s.amount).gt(0)) ?? [];
  const totalInflow = sources.reduce((t, s) => t.plus(s.amount), money(0));
  const sourceSentence = sources[0]
    ? ` ${capitalise(sources[0].label)} make up *${pctOf(sources[0].amount, totalInflow.toString())}* of the ${m(totalInflow.toString())} forecast to come in over 13 weeks.`
    : "";
  if (top) {
    const name = plainName(top.name);
    const ref: BriefRef = { kind: "customer", key: top.key, displayName: displayName(top.name) };
    return {
      headline: fitHeadline(
        (n) => `${n} leads expected receipts with ${m(top.dueNext13w)}`,
        top.name,
      ),
      bodyMarkdown:
        `**${name}** accounts for *${pctOf(top.dueNext13w, f.expectedFromCustomers)}* of the ` +
        `${m(f.expectedFromCustomers)} customers owe over the next 13 weeks.${sourceSentence}`,
      refs: [ref],
    };
  }
  if (sources[0]) {
    return {
      headline: fitHeadline(
        (label) => `Inflows rest on ${label}: ${m(sources[0]?.amount ?? "0")}`,
        sources[0].label,
      ),
      bodyMarkdown: `No single customer stands out among open receivables.${sourceSentence}`,
      refs: [],
    };
  }
  return {
    headline: "No customer receipts are scheduled",
    bodyMarkdown:
      "No open invoice falls due in the next 13 weeks, so inflows depend on *new sales*.",
    refs: [],
  };
}

function weakestWeek(weeks: readonly BriefWeek[]): BriefWeek | null {
  let low: BriefWeek | null = null;
  for (const w of weeks) if (!low || money(w.closing).lt(low.closing)) low = w;
  return low;
}

/** The weakest forecast week, else the overdue receivables, else nothing to flag. */
function riskSignal(f: BriefFacts): BriefSection {
  const m = (v: string) => formatMoney(v, f.currency);
  const low = f.forecast ? weakestWeek(f.forecast.weeks) : null;
  if (low) {
    const negative = money(low.closing).isNegative();
    const refs: BriefRef[] = [{ kind: "week", weekNumber: low.weekNumber }];
    let because = "";
    if (low.topOutflow && money(low.topOutflow.amount).gt(0)) {
      refs.push({
        kind: "category",
        key: low.topOutflow.key,
        displayName: displayName(low.topOutflow.name),
      });
      because = `, when *${plainName(low.topOutflow.name)}* takes ${m(low.topOutflow.amount)}`;
    }
    return {
      headline: negative
        ? `Cash goes negative in week ${low.weekNumber}: ${m(low.closing)}`
        : `Week ${low.weekNumber} is the low point at ${m(low.closing)}`,
      bodyMarkdown:
        `Cash is forecast to bottom out at **${m(low.closing)}** in the week of ` +
        `${low.weekStart}${because}.`,
      refs,
    };
  }
  if (money(f.overdueTotal).gt(0)) {
    return {
      headline: `${m(f.overdueTotal)} of receivables is overdue`,
      bodyMarkdown:
        `${f.overdueCount} invoice${f.overdueCount === 1 ? " is" : "s are"} past due, worth ` +
        `**${m(f.overdueTotal)}**. No forecast has been computed yet.`,
      refs: [],
    };
  }
  return {
    headline: "No forecast risk identified yet",
    bodyMarkdown: "No forecast has been computed yet, and *nothing is overdue*.",
    refs: [],
  };
}

/** One concrete move this week: chase the largest overdue customer, else guard the low week. */
function recommendedAction(f: BriefFacts): BriefSection {
  const m = (v: string) => formatMoney(v, f.currency);
  const chase = [...f.customers]
    .filter((c) => money(c.overdue).gt(0))
    .sort((a, b) => money(b.overdue).comparedTo(a.overdue) || (a.key < b.key ? -1 : 1))[0];
  if (chase) {
    const name = plainName(chase.name);
    return {
      headline: fitHeadline((n) => `Chase ${n} for ${m(chase.overdue)} overdue`, chase.name),
      bodyMarkdown:
        `**${name}** has ${chase.overdueCount} overdue invoice${chase.overdueCount === 1 ? "" : "s"} ` +
        `totalling *${m(chase.overdue)}*. A reminder this week brings that cash forward.`,
      refs: [{ kind: "customer", key: chase.key, displayName: displayName(chase.name) }],
    };
  }
  if (money(f.overdueTotal).gt(0)) {
    return {
      headline: `Chase ${f.overdueCount} overdue invoice${f.overdueCount === 1 ? "" : "s"} worth ${m(f.overdueTotal)}`,
      bodyMarkdown: `Overdue receivables total **${m(f.overdueTotal)}**. Send reminders this week.`,
      refs: [],
    };
  }
  const low = f.forecast ? weakestWeek(f.forecast.weeks) : null;
  if (low && money(low.closing).isNegative()) {
    return {
      headline: `Defer spending due before week ${low.weekNumber}`,
      bodyMarkdown:
        `Nothing is overdue, but cash turns negative in week ${low.weekNumber}. Move *discretionary* ` +
        "bills past that week or arrange funding now.",
      refs: [{ kind: "week", weekNumber: low.weekNumber }],
    };
  }
  return {
    headline: "Review next week's bills against expected receipts",
    bodyMarkdown:
      "Nothing is overdue. Check the bills due next week against the receipts expected.",
    refs: [],
  };
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The rules generator: mainDriver, riskSignal and recommendedAction from the facts. */
export function rulesBrief(facts: BriefFacts): BriefPayload {
  return {
    mainDriver: mainDriver(facts),
    riskSignal: riskSignal(facts),
    recommendedAction: recommendedAction(facts),
  };
}
