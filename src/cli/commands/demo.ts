import { BUSINESSES, DEFAULT_BUSINESS } from "../../demo/business.ts";
import { DEFAULT_DEMO_INVOICES, MAX_DEMO_INVOICES } from "../../demo/generate.ts";
import { defineCommand } from "../command.ts";

/** The seed when none is given: `cashrunway demo` always builds the same organisation. */
export const DEFAULT_DEMO_SEED = "demo";

/** `demo [--seed S] [--invoices N] [--name NAME]`: a demo organisation with a ledger and a key. */
export const demoCommand = defineCommand({
  name: "demo",
  summary: "a new demo organisation with two years of ledger data, imported, and an API key",
  flags: {
    seed: {
      value: "S",
      description: `the generator's seed: the same seed builds the same ledger (default "${DEFAULT_DEMO_SEED}")`,
    },
    invoices: {
      value: "N",
      description: `how many sales invoices to generate, 1 to ${MAX_DEMO_INVOICES} (default ${DEFAULT_DEMO_INVOICES})`,
    },
    name: { value: "NAME", description: "the organisation's name (default: the generated one)" },
    business: {
      value: "KIND",
      description: `the kind of business: ${BUSINESSES.join(", ")} (default ${DEFAULT_BUSINESS}, the usual demo)`,
    },
  },
  usage: [
    `demo [--seed S] [--invoices 1..${MAX_DEMO_INVOICES}] [--name NAME] [--business KIND]   (new demo organisation with two years of ledger data and a key)`,
  ],
  examples: [
    "demo",
    'demo --seed acme --invoices 20000 --name "Acme Ltd"',
    "demo --business wholesaler",
  ],
  async run(args, ctx) {
    const { runDemo } = await import("./demo-run.ts");
    await runDemo(args, ctx);
  },
});
