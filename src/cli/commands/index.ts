import type { Command } from "../command.ts";
import { baselinesCommand } from "./baselines.ts";
import { billingCommand } from "./billing.ts";
import { briefCommand } from "./brief.ts";
import { cashCommand } from "./cash.ts";
import { completionCommand } from "./completion.ts";
import { demoCommand } from "./demo.ts";
import { fakeLedgerCommand } from "./fake-ledger.ts";
import { backtestCommand, forecastCommand, scenarioCommand } from "./forecast.ts";
import { importCommand } from "./import.ts";
import { keysCommand } from "./keys.ts";
import { ledgerCommand } from "./ledger.ts";
import { orgCommand } from "./org.ts";
import { partnerCommand } from "./partner.ts";
import { sensitiveCommand } from "./sensitive.ts";
import { serveCommand } from "./serve.ts";
import { userCommand } from "./user.ts";
import { passwordCommand } from "./web.ts";
// (commands of other modules are imported here)

/** Every command, in help order. */
export const COMMANDS: Command[] = [
  serveCommand,
  orgCommand,
  userCommand,
  partnerCommand,
  sensitiveCommand,
  keysCommand,
  demoCommand,
  importCommand,
  billingCommand,
  ledgerCommand,
  fakeLedgerCommand,
  passwordCommand,
  baselinesCommand,
  briefCommand,
  cashCommand,
  forecastCommand,
  scenarioCommand,
  backtestCommand,
  // (and listed here)
  completionCommand,
];
