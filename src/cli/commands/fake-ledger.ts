import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeLedger } from "../../connector/xero/fake/server.ts";
import { generateDemoLedger } from "../../demo/generate.ts";
import { defineCommand } from "../command.ts";

/**
 * The ledger's contract fake as a server (docs/ledger.md): Xero's identity and accounting paths
 * over one tenant holding an export folder (or a generated demo ledger), for a local connect.
 */
export const fakeLedgerCommand = defineCommand({
  name: "fake-ledger",
  summary: "run the ledger's contract fake (Xero's paths) for a local connect",
  flags: {
    port: { value: "PORT", description: "the port to listen on (default 4010)" },
    folder: { value: "DIR", description: "a ledger export folder to serve (default: a demo)" },
    invoices: { value: "N", description: "sales invoices of the generated demo (default 1100)" },
  },
  usage: ["fake-ledger [--port PORT] [--folder DIR] [--invoices N]"],
  examples: ["fake-ledger --port 4010"],
  async run(args, ctx) {
    const port = args.int("port", 0, 65535) ?? 4010;
    let folder = args.string("folder");
    let generated: string | undefined;
    if (!folder) {
      generated = await mkdtemp(join(tmpdir(), "cashrunway-fake-ledger-"));
      await generateDemoLedger({
        seed: "fake-ledger",
        now: ctx.clock.now(),
        invoices: args.int("invoices", 1, 200_000) ?? 1100,
        folder: generated,
      });
      folder = generated;
    }
    const fake = await startFakeLedger({ port });
    const tenant = await fake.store.loadTenantFromFolder(folder);
    ctx.print(
      { url: fake.url, tenantId: tenant.tenantId, tenantName: tenant.tenantName, env: fake.env },
      [
        `Fake ledger at ${fake.url}: tenant "${tenant.tenantName}" (${tenant.tenantId}).`,
        "Point the service at it with:",
        ...Object.entries(fake.env).map(([k, v]) => `  export ${k}=${v}`),
        "Stop with Ctrl-C.",
      ],
    );
    await new Promise<void>((resolve) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
    await fake.close();
    if (generated) await rm(generated, { recursive: true, force: true });
  },
});
