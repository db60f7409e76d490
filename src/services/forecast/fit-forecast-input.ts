import { weighedCache } from "../../cache.ts";
import type { DbOrTx } from "../../db/client.ts";
import { readOrgDataEpoch } from "../../db/queries/data-epochs.ts";
import { booksAsOf } from "../../domain/forecasting/books.ts";
import {
  buildForecastModel,
  type ForecastModel,
} from "../../domain/forecasting/compute-forecast.ts";
import type { ForecastInput } from "../../domain/forecasting/types.ts";
import { localDate } from "../../domain/timezones.ts";
import type { StartingCash } from "../cash-position/starting-cash.ts";
import {
  type BookRows,
  booksFromRows,
  type ForecastOrg,
  loadCash,
  readBookRows,
  refreshBookRows,
} from "./load-forecast-input.ts";

/** What is kept of an organisation's last recompute, valid while its data epoch stands. */
interface Kept {
  /** The client read through: an organisation id names one organisation per database only. */
  db: DbOrTx;
  epoch: number;
  /** The organisation's zone, currency and included bank accounts the rows were read with. */
  readWith: string;
  rows: BookRows;
  /** The engine's input (but for `now` and the starting cash) and model on `today`. */
  fitted: { today: string; input: Omit<ForecastInput, "scenario">; model: ForecastModel };
}

/** An entry's weight: the rows it holds (CACHES.forecastBooks), at least 1. */
const weight = ({ rows }: Kept) =>
  1 + rows.documents.length + rows.orders.length + rows.manual.length + rows.bank.length;

const kept = weighedCache<string, Kept>("forecastBooks", weight);

/**
 * How much of the kept books a recompute reused: none; the unchanged documents (`changed`: a
 * write moved the epoch, only the documents it changed are read); all the rows; the model.
 */
export type Reuse = "none" | "changed" | "rows" | "model";

/**
 * The engine's input and model for an organisation on `now`'s local date, with its starting
 * cash (read afresh each time: it moves with the clock and the bank balances). The books' rows
 * and the fitted model are kept per organisation (docs/adr/0008-forecast-books-kept-per-data-epoch.md):
 * while the organisation's data epoch stands, a recompute on the same local date reuses the
 * model, and one on a later date rebuilds the books from the rows already read (the rows of an
 * earlier cutoff hold those of a later one); once a write moved it, only the documents whose row
 * version changed are read again (`refreshBookRows`) and the model is refitted. The epoch is read
 * before the rows: rows read at an epoch are at least that new, and a write after it moves it.
 * The answer is the one a fresh load gives (test/integration/forecast-kept-books.test.ts checks
 * it); this relies on the engine never changing the input or model it is given, which the same
 * test would see.
 */
export async function fitForecastInput(
  db: DbOrTx,
  org: ForecastOrg,
  now: Date,
): Promise<{
  input: Omit<ForecastInput, "scenario">;
  model: ForecastModel;
  cash: StartingCash;
  reuse: Reuse;
}> {
  const epoch = await readOrgDataEpoch(db, org.id);
  const { cash, included } = await loadCash(db, org, now);
  const today = localDate(now, org.timezone);
  const readWith = JSON.stringify([org.timezone, org.baseCurrency, included]);
  const last = kept.get(org.id);
  // Rows read through this client, with this zone, currency and accounts, for this date or an
  // earlier one.
  const usable =
    last !== undefined &&
    last.db === db &&
    last.readWith === readWith &&
    last.rows.cutoff !== null &&
    last.rows.cutoff <= today;
  const current = { now, startingCash: cash.effectiveStartingCash };
  if (usable && last.epoch === epoch && last.fitted.today === today) {
    return {
      input: { ...last.fitted.input, ...current },
      model: last.fitted.model,
      cash,
      reuse: "model",
    };
  }
  const read = { cutoff: today, includedBankAccounts: included };
  let rows: BookRows;
  let reuse: Reuse;
  if (!usable) {
    rows = await readBookRows(db, org, read);
    reuse = "none";
  } else if (last.epoch === epoch) {
    rows = last.rows;
    reuse = "rows";
  } else {
    rows = await refreshBookRows(db, org, last.rows, read);
    reuse = "changed";
  }
  const input = booksAsOf(booksFromRows(org, rows, today), today, cash.effectiveStartingCash, now);
  const model = buildForecastModel(input);
  kept.set(org.id, { db, epoch, readWith, rows, fitted: { today, input, model } });
  return { input, model, cash, reuse };
}

/** Drops every kept book (tests and the bench measure a recompute from nothing). */
export function forgetForecastInputs(): void {
  kept.clear();
}
