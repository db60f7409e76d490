import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { createFakeLedger, type FakeLedger, type FakeLedgerOptions } from "./app.ts";

export interface RunningFakeLedger extends FakeLedger {
  /** `http://127.0.0.1:PORT`: the base of every LEDGER_*_URL. */
  url: string;
  /** The LEDGER_* settings that point the service at this fake. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Starts the contract fake on 127.0.0.1 (`port` 0: any free port). */
export async function startFakeLedger(
  options: FakeLedgerOptions & { port?: number; host?: string } = {},
): Promise<RunningFakeLedger> {
  const fake = createFakeLedger(options);
  const server: Server = createServer(getRequestListener(fake.app.fetch));
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host}:${port}`;
  return {
    ...fake,
    url,
    env: fakeLedgerEnv(url, options),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The service's LEDGER_* settings for a fake at `url`. */
export function fakeLedgerEnv(
  url: string,
  options: Pick<FakeLedgerOptions, "clientId" | "clientSecret"> = {},
): Record<string, string> {
  return {
    LEDGER_AUTHORIZE_URL: `${url}/identity/connect/authorize`,
    LEDGER_TOKEN_URL: `${url}/connect/token`,
    LEDGER_REVOKE_URL: `${url}/connect/revocation`,
    LEDGER_API_URL: url,
    LEDGER_CLIENT_ID: options.clientId ?? "cashrunway-fake-client",
    LEDGER_CLIENT_SECRET: options.clientSecret ?? "cashrunway-fake-secret",
  };
}
