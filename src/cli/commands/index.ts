import type { Command } from "../command.ts";
import { keysCommand } from "./keys.ts";
import { orgCommand } from "./org.ts";
import { partnerCommand } from "./partner.ts";
import { sensitiveCommand } from "./sensitive.ts";
import { serveCommand } from "./serve.ts";
import { userCommand } from "./user.ts";
// (commands of other modules are imported here)

/** Every command, in help order. */
export const COMMANDS: Command[] = [
  serveCommand,
  orgCommand,
  userCommand,
  partnerCommand,
  sensitiveCommand,
  keysCommand,
  // (and listed here)
];
