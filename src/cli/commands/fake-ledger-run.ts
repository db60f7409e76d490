import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeLedger } from "../../connector/xero/fake/server.ts";
import { generateDemoLedger } from "../../demo/generate.ts";
import type { ParsedArgs } from "../args.ts";
import type { CliContext } from "../command.ts";

export async function runFakeLedger(args: ParsedArgs, ctx: CliContext): Promise<void> {
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
}
