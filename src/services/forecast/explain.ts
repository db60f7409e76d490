import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { InvalidParameterError, NotFoundError } from "../errors.ts";
import { SENSITIVE_CONTACT_NAME } from "../summaries/ledger-summary.ts";
import type { ForecastDetail, ForecastPayload } from "./recompute-forecasts.ts";
import { decodeDetail } from "./snapshot-detail.ts";

/** The name an item of a sensitive contact goes by without sensitive access. */
export const SENSITIVE_ITEM_LABEL = "Sensitive item";
const SENSITIVE_ACCOUNT_NAME = "Sensitive account";

/** A line behind a week, with the names a person knows it by. */
export type NamedLine = ForecastDetail["lines"][number] & {
  /** Invoice, bill or purchase order number, else the line's note or kind ("Sensitive item" when hidden). */
  label: string;
  /** The contact's name ("Sensitive contact" when hidden); null without one. */
  contactName: string | null;
  /** The ledger account's name ("Sensitive account" when hidden); null without one. */
  accountName: string | null;
};

/** An open item the forecast left out, and why. */
export interface ExcludedItem {
  itemId: string;
  label: string;
  contactName: string | null;
  reason: string;
}

/**
 * Every learned parameter with its evidence, as the snapshot carries it: by kind (for example
 * `purchaseOrderLags`), a list of entries whose `contactId` is named here (`contactName`).
 * Rendered generically: the engine may add kinds and fields.
 */
export type LearnedParameters = Record<string, Record<string, unknown>[]>;

/** One week of a stored snapshot with every line behind it. */
export interface WeekExplanation {
  scenarioId: string;
  scenarioName: string;
  computedAt: string;
  week: ForecastPayload["weeks"][number];
  lines: NamedLine[];
  /** Customers and suppliers behind the week's predicted lines, largest first. */
  predicted: {
    contactId: string;
    contactName: string | null;
    direction: "in" | "out";
    amount: string;
    expectedOrders: string;
  }[];
  /** Run rates behind the week's predicted lines. */
  runRates: { kind: string; direction: "in" | "out"; amount: string }[];
  /** Open items the forecast left out (in no week), and why. */
  excluded: ExcludedItem[];
  /** Timing learned from the organisation's history, with its evidence. */
  learned: LearnedParameters;
  /** Items hidden because their contact is sensitive and sensitive access was not given. */
  redactedItemCount: number;
}

/** What `forecast explain --invoice/--contact` finds: where the matches sit in the 13 weeks. */
export interface ItemsExplanation {
  scenarioId: string;
  scenarioName: string;
  computedAt: string;
  /** What was asked for, and what matched. */
  query: { invoice?: string; contact?: string };
  matched: { itemIds: string[]; contacts: { contactId: string; name: string }[] };
  /** Every line of the matches, with its week (1 to 13). */
  lines: (NamedLine & { week: number })[];
  /** Predicted orders of a matched contact, per week (weeks adding nothing left out). */
  predicted: { week: number; direction: "in" | "out"; amount: string; expectedOrders: string }[];
  /** Recurring streams of a matched contact. */
  recurring: ForecastDetail["recurring"];
  excluded: ExcludedItem[];
  learned: LearnedParameters;
  redactedItemCount: number;
}

interface SnapshotRow {
  scenarioId: string;
  name: string;
  computedAt: Date | string;
  payload: ForecastPayload;
  detail: ForecastDetail | null;
}

const rows = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

async function latestSnapshot(db: Db, orgId: string, scenarioId?: string): Promise<SnapshotRow> {
  const wanted = scenarioId ?? null;
  const [row] = rows<Omit<SnapshotRow, "detail"> & { detail: unknown; predictions: unknown }>(
    await db.execute(sql`
    SELECT sc.id AS "scenarioId", sc.name, s.computed_at AS "computedAt", s.payload, s.detail,
           p.predictions
    FROM forecast_scenarios sc
    JOIN LATERAL (
      SELECT computed_at, payload, detail, predictions_id FROM forecast_snapshots
      WHERE org_id = ${orgId} AND scenario_id = sc.id ORDER BY computed_at DESC, id DESC LIMIT 1
    ) s ON true
    LEFT JOIN forecast_predictions p ON p.org_id = ${orgId} AND p.id = s.predictions_id
    WHERE sc.org_id = ${orgId}
      AND (CASE WHEN ${wanted}::text IS NULL THEN sc.kind = 'BASE' ELSE sc.id = ${wanted}::text END)`),
  );
  if (!row) throw new NotFoundError("forecast snapshot");
  const { predictions, ...snapshot } = row;
  return {
    ...snapshot,
    detail: decodeDetail(snapshot.detail, predictions as ForecastDetail["predictions"] | null),
  };
}

interface ItemName {
  number: string | null;
  contactId: string | null;
  contactName: string | null;
  sensitive: boolean;
}

/**
 * Names for the items, contacts and accounts a snapshot mentions: invoice, bill and purchase
 * order numbers with their contact, contacts by their ledger id, accounts by their service id.
 */
class Names {
  private constructor(
    private readonly items: Map<string, ItemName>,
    private readonly contacts: Map<string, { name: string; sensitive: boolean }>,
    private readonly accounts: Map<string, { name: string; sensitive: boolean }>,
    private readonly seesSensitive: boolean,
  ) {}

  hidden = new Set<string>();

  static async load(
    db: Db,
    orgId: string,
    input: { itemIds: string[]; contactIds: string[]; accountIds: string[] },
    seesSensitive: boolean,
  ): Promise<Names> {
    const list = (ids: string[]) =>
      ids.length === 0
        ? sql`NULL`
        : sql.join(
            ids.map((id) => sql`${id}`),
            sql`, `,
          );
    const items = new Map<string, ItemName>();
    const contacts = new Map<string, { name: string; sensitive: boolean }>();
    const accounts = new Map<string, { name: string; sensitive: boolean }>();
    const itemIds = [...new Set(input.itemIds)];
    if (itemIds.length > 0) {
      for (const r of rows<{ id: string } & ItemName>(
        await db.execute(sql`
          SELECT ci.id, ci.invoice_number AS number, ci.contact_external_id AS "contactId",
                 COALESCE(c.name, ci.contact_name) AS "contactName", COALESCE(c.is_sensitive, false) AS sensitive
          FROM cash_items ci
          LEFT JOIN contacts c ON c.org_id = ci.org_id AND c.external_id = ci.contact_external_id
          WHERE ci.org_id = ${orgId} AND ci.id IN (${list(itemIds)})
          UNION ALL
          SELECT po.id, po.purchase_order_number, po.contact_external_id,
                 COALESCE(c.name, po.contact_name), COALESCE(c.is_sensitive, false)
          FROM purchase_orders po
          LEFT JOIN contacts c ON c.org_id = po.org_id AND c.external_id = po.contact_external_id
          WHERE po.org_id = ${orgId} AND po.id IN (${list(itemIds)})`),
      )) {
        items.set(r.id, r);
      }
    }
    const contactIds = [...new Set(input.contactIds)];
    if (contactIds.length > 0) {
      for (const r of rows<{ id: string; name: string; sensitive: boolean }>(
        await db.execute(sql`
          SELECT external_id AS id, name, is_sensitive AS sensitive FROM contacts
          WHERE org_id = ${orgId} AND external_id IN (${list(contactIds)})`),
      )) {
        contacts.set(r.id, { name: r.name, sensitive: r.sensitive });
      }
    }
    const accountIds = [...new Set(input.accountIds)];
    if (accountIds.length > 0) {
      for (const r of rows<{ id: string; name: string; sensitive: boolean }>(
        await db.execute(sql`
          SELECT id, name, is_sensitive AS sensitive FROM ledger_accounts
          WHERE org_id = ${orgId} AND id IN (${list(accountIds)})`),
      )) {
        accounts.set(r.id, { name: r.name, sensitive: r.sensitive });
      }
    }
    return new Names(items, contacts, accounts, seesSensitive);
  }

  /** An item's number (or fallback) and contact, "Sensitive …" when its contact is hidden. */
  item(itemId: string, fallback: string): { label: string; contactName: string | null } {
    const i = this.items.get(itemId);
    if (!i) return { label: fallback, contactName: null };
    if (i.sensitive && !this.seesSensitive) {
      this.hidden.add(itemId);
      return { label: SENSITIVE_ITEM_LABEL, contactName: SENSITIVE_CONTACT_NAME };
    }
    return { label: i.number ?? fallback, contactName: i.contactName };
  }

  contact(contactId: string | null): string | null {
    if (contactId === null) return null;
    const c = this.contacts.get(contactId);
    if (!c) return null;
    return c.sensitive && !this.seesSensitive ? SENSITIVE_CONTACT_NAME : c.name;
  }

  account(accountId: string | null): string | null {
    if (accountId === null) return null;
    const a = this.accounts.get(accountId);
    if (!a) return null;
    return a.sensitive && !this.seesSensitive ? SENSITIVE_ACCOUNT_NAME : a.name;
  }

  line(l: ForecastDetail["lines"][number]): NamedLine {
    const named = this.item(l.itemId, l.note ?? sourceWords(l.source));
    return {
      ...l,
      label: named.label,
      contactName: named.contactName ?? this.contact(l.contactId),
      accountName: this.account(l.accountId),
    };
  }

  excluded(e: ForecastDetail["excluded"][number]): ExcludedItem {
    const named = this.item(e.itemId, e.itemId);
    return {
      itemId: e.itemId,
      label: named.label,
      contactName: named.contactName,
      reason: e.reason,
    };
  }

  /** Learned parameters with each entry's contact named (entries of hidden contacts say so). */
  learned(detail: ForecastDetail | null): LearnedParameters {
    const out: LearnedParameters = {};
    for (const [kind, value] of Object.entries(detail?.learned ?? {})) {
      if (!Array.isArray(value)) continue;
      out[kind] = (value as unknown as Record<string, unknown>[]).map((entry) => {
        const id = typeof entry.contactId === "string" ? entry.contactId : null;
        return id === null
          ? { ...entry, contactName: null }
          : { ...entry, contactName: this.contact(id) ?? id };
      });
    }
    return out;
  }
}

function sourceWords(source: string): string {
  const words: Record<string, string> = {
    LEDGER_INVOICE: "invoice",
    LEDGER_BILL: "bill",
    PURCHASE_ORDER: "purchase order",
    RECURRING: "recurring",
    MANUAL: "manual item",
    PIPELINE: "pipeline",
    PREDICTED: "predicted orders",
  };
  return words[source] ?? source.toLowerCase();
}

/** Contact ids a detail mentions, for naming. */
function contactIdsOf(detail: ForecastDetail | null): string[] {
  if (!detail) return [];
  const ids: string[] = [];
  for (const l of detail.lines) if (l.contactId) ids.push(l.contactId);
  for (const p of detail.predictions) ids.push(p.contactId);
  for (const list of Object.values(detail.learned ?? {})) {
    if (!Array.isArray(list)) continue;
    for (const e of list as unknown as Record<string, unknown>[]) {
      if (typeof e.contactId === "string") ids.push(e.contactId);
    }
  }
  return ids;
}

/**
 * The lines behind week `week` (1 to 13) of the latest snapshot of a scenario (default BASE):
 * the operator's view of "every number in a week is explainable from its itemIds", each line
 * named by its invoice, bill or purchase order number and contact. `seesSensitive` false hides
 * the numbers and names of sensitive contacts' items as the API does (amounts stay).
 */
export async function explainForecastWeek(
  db: Db,
  input: { orgId: string; scenarioId?: string; week: number; seesSensitive?: boolean },
): Promise<WeekExplanation> {
  const row = await latestSnapshot(db, input.orgId, input.scenarioId);
  const index = input.week - 1;
  const week = row.payload.weeks[index];
  if (!week) throw new NotFoundError("week");
  const detail = row.detail;
  const lines = (detail?.lines ?? []).filter((l) => l.weekIndex === index);
  const excluded = detail?.excluded ?? [];
  const names = await Names.load(
    db,
    input.orgId,
    {
      itemIds: [...lines.map((l) => l.itemId), ...excluded.map((e) => e.itemId)],
      contactIds: contactIdsOf(detail),
      accountIds: lines.flatMap((l) => (l.accountId ? [l.accountId] : [])),
    },
    input.seesSensitive ?? true,
  );
  const predicted = (detail?.predictions ?? [])
    .map((p) => ({
      contactId: p.contactId,
      contactName: names.contact(p.contactId),
      direction: p.direction,
      amount: p.amounts[index] ?? "0",
      expectedOrders: p.expectedOrders[index] ?? "0",
    }))
    .filter((p) => p.amount !== "0")
    .sort((a, b) => Number(b.amount) - Number(a.amount) || (a.contactId < b.contactId ? -1 : 1));
  const named = lines.map((l) => names.line(l));
  const excludedNamed = excluded.map((e) => names.excluded(e));
  return {
    scenarioId: row.scenarioId,
    scenarioName: row.name,
    computedAt: new Date(row.computedAt).toISOString(),
    week,
    lines: named,
    predicted,
    runRates: (detail?.runRates ?? [])
      .map((r) => ({ kind: r.kind, direction: r.direction, amount: r.amounts[index] ?? "0" }))
      .filter((r) => r.amount !== "0"),
    excluded: excludedNamed,
    learned: names.learned(detail),
    redactedItemCount: names.hidden.size,
  };
}

/**
 * Where an invoice (bill, purchase order) found by its number, or a contact found by its name
 * (case-insensitive; an exact match first, else every name containing it), sits in the latest
 * snapshot of a scenario: its lines by week, a contact's predicted orders and recurring streams,
 * and what was excluded and why. Without `seesSensitive`, sensitive contacts are not matched by
 * name and their items not by number (as the API hides them).
 */
export async function explainForecastItems(
  db: Db,
  input: {
    orgId: string;
    scenarioId?: string;
    invoice?: string;
    contact?: string;
    seesSensitive?: boolean;
  },
): Promise<ItemsExplanation> {
  const sees = input.seesSensitive ?? true;
  if ((input.invoice === undefined) === (input.contact === undefined)) {
    throw new InvalidParameterError(
      "invoice",
      "give exactly one of an invoice number or a contact name",
    );
  }
  const row = await latestSnapshot(db, input.orgId, input.scenarioId);
  const detail = row.detail;
  const itemIds: string[] = [];
  let contacts: { contactId: string; name: string }[] = [];
  if (input.invoice !== undefined) {
    const found = rows<{ id: string; sensitive: boolean }>(
      await db.execute(sql`
        SELECT ci.id, COALESCE(c.is_sensitive, false) AS sensitive FROM cash_items ci
        LEFT JOIN contacts c ON c.org_id = ci.org_id AND c.external_id = ci.contact_external_id
        WHERE ci.org_id = ${input.orgId} AND lower(ci.invoice_number) = lower(${input.invoice})
        UNION ALL
        SELECT po.id, COALESCE(c.is_sensitive, false) FROM purchase_orders po
        LEFT JOIN contacts c ON c.org_id = po.org_id AND c.external_id = po.contact_external_id
        WHERE po.org_id = ${input.orgId} AND lower(po.purchase_order_number) = lower(${input.invoice})`),
    );
    itemIds.push(...found.filter((f) => sees || !f.sensitive).map((f) => f.id));
    if (itemIds.length === 0) throw new NotFoundError(`invoice ${input.invoice}`);
  } else {
    const wanted = (input.contact ?? "").trim();
    if (wanted === "") throw new InvalidParameterError("contact", "the contact name is empty");
    const found = rows<{ id: string; name: string; exact: boolean }>(
      await db.execute(sql`
        SELECT external_id AS id, name, lower(name) = lower(${wanted}) AS exact FROM contacts
        WHERE org_id = ${input.orgId} AND strpos(lower(name), lower(${wanted})) > 0
          AND (${sees} OR NOT is_sensitive)
        ORDER BY name, external_id LIMIT 50`),
    );
    const exact = found.filter((f) => f.exact);
    contacts = (exact.length > 0 ? exact : found).map((f) => ({ contactId: f.id, name: f.name }));
    if (contacts.length === 0) throw new NotFoundError(`contact ${wanted}`);
  }
  const contactSet = new Set(contacts.map((c) => c.contactId));
  const itemSet = new Set(itemIds);
  const allLines = detail?.lines ?? [];
  // Items named directly, or whose line carries a matched contact.
  const lines = allLines.filter(
    (l) => itemSet.has(l.itemId) || (l.contactId !== null && contactSet.has(l.contactId)),
  );
  const contactItems =
    contacts.length === 0
      ? []
      : rows<{ id: string }>(
          await db.execute(sql`
            SELECT id FROM cash_items WHERE org_id = ${input.orgId} AND contact_external_id IN (${sql.join(
              contacts.map((c) => sql`${c.contactId}`),
              sql`, `,
            )})
            UNION ALL
            SELECT id FROM purchase_orders WHERE org_id = ${input.orgId} AND contact_external_id IN (${sql.join(
              contacts.map((c) => sql`${c.contactId}`),
              sql`, `,
            )})`),
        ).map((r) => r.id);
  const matchedItems = new Set([...itemIds, ...contactItems]);
  const excluded = (detail?.excluded ?? []).filter((e) => matchedItems.has(e.itemId));
  const names = await Names.load(
    db,
    input.orgId,
    {
      itemIds: [...lines.map((l) => l.itemId), ...excluded.map((e) => e.itemId)],
      contactIds: contactIdsOf(detail),
      accountIds: lines.flatMap((l) => (l.accountId ? [l.accountId] : [])),
    },
    sees,
  );
  const predicted = (detail?.predictions ?? [])
    .filter((p) => contactSet.has(p.contactId))
    .flatMap((p) =>
      p.amounts.map((amount, i) => ({
        week: i + 1,
        direction: p.direction,
        amount,
        expectedOrders: p.expectedOrders[i] ?? "0",
      })),
    )
    .filter((p) => p.amount !== "0");
  const contactNames = new Set(contacts.map((c) => c.name.toLowerCase()));
  const learned = names.learned(detail);
  const matchedLearned: LearnedParameters = {};
  for (const [kind, entries] of Object.entries(learned)) {
    const mine = entries.filter(
      (e) => typeof e.contactId === "string" && contactSet.has(e.contactId),
    );
    // The organisation-wide fallbacks (no contact) apply to every match.
    const fallback = entries.filter((e) => e.contactId === null || e.contactId === undefined);
    if (mine.length + fallback.length > 0) matchedLearned[kind] = [...mine, ...fallback];
  }
  return {
    scenarioId: row.scenarioId,
    scenarioName: row.name,
    computedAt: new Date(row.computedAt).toISOString(),
    query: input.invoice !== undefined ? { invoice: input.invoice } : { contact: input.contact },
    matched: { itemIds, contacts },
    lines: lines.map((l) => ({ ...names.line(l), week: l.weekIndex + 1 })),
    predicted,
    recurring: (detail?.recurring ?? []).filter(
      (r) => r.contactName !== null && contactNames.has(r.contactName.toLowerCase()),
    ),
    excluded: excluded.map((e) => names.excluded(e)),
    learned: matchedLearned,
    redactedItemCount: names.hidden.size,
  };
}
