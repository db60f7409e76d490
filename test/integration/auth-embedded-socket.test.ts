import { rmSync } from "node:fs";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type Db, openEmbedded } from "../../src/db/client.ts";
import { authenticateKey } from "../../src/services/keys/authenticate-key.ts";
import { createApiKey } from "../../src/services/keys/create-api-key.ts";
import { resolveTargetOrg } from "../../src/services/keys/resolve-target-org.ts";
import { createOrganisation } from "../../src/services/orgs/create-organisation.ts";
import { rowsOf, TEST_NOW } from "../helpers/api.ts";
import { embeddedDataDir } from "../helpers/test-db.ts";

describe("key lookups through the embedded database's shared socket", () => {
  it("work from one connection after another (no named statements left in the shared session)", async () => {
    const dir = embeddedDataDir("cr-keys-socket-");
    const server = await openEmbedded(dir, { share: true });
    try {
      const org = await createOrganisation(server.db, { name: "Socket org" }, TEST_NOW);
      const k = await createApiKey(
        server.db,
        { kind: "ORG", orgId: org.id, label: "s", scopes: ["READ_BANK"] },
        TEST_NOW,
      );
      // Each CLI process opens its own connection to the server's one PGlite session.
      for (let i = 0; i < 2; i++) {
        const client = await openEmbedded(dir);
        try {
          expect(client.location).toContain("via running server");
          const key = await authenticateKey(client.db, k.key);
          expect(key?.prefix).toBe(k.prefix);
          if (!key) return;
          expect((await resolveTargetOrg(client.db, key, undefined)).id).toBe(org.id);
        } finally {
          await client.close();
        }
      }
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the embedded database's one session, shared through its socket", () => {
  it("keeps each client's statements and transactions whole while the server queries too", async () => {
    const dir = embeddedDataDir("cr-session-socket-");
    const server = await openEmbedded(dir, { share: true });
    const clients = [await openEmbedded(dir), await openEmbedded(dir)];
    try {
      await server.db.execute(sql`CREATE TABLE session_probe (client int, n int)`);
      let stop = false;
      // The server's own writes (unnamed statements with parameters), four at a time, as
      // concurrent requests make them: one is nearly always waiting for the session.
      const serverLoop = async () => {
        let n = 0;
        while (!stop) {
          const [row] = rowsOf<{ n: number }>(
            await server.db.execute(sql`INSERT INTO session_probe VALUES (0, ${n}) RETURNING n`),
          );
          expect(row?.n).toBe(n);
          n += 1;
          // As the HTTP server does between requests; PGlite's promises alone never yield.
          await new Promise((r) => setImmediate(r));
        }
        return n;
      };
      const serverLoops = [serverLoop(), serverLoop(), serverLoop(), serverLoop()];
      // Each CLI client: statements with many parameters, and transactions that roll back.
      const clientWork = async (db: Db, client: number) => {
        for (let i = 0; i < 30; i++) {
          const values = Array.from({ length: 120 }, (_, j) => client * 100_000 + i * 1_000 + j);
          const sum = sql.join(
            values.map((v) => sql`${v}::int`),
            sql` + `,
          );
          const [row] = rowsOf<{ s: string }>(await db.execute(sql`SELECT (${sum})::bigint AS s`));
          expect(Number(row?.s)).toBe(values.reduce((a, b) => a + b, 0));
          await expect(
            db.transaction(async (tx) => {
              for (let k = 0; k < 5; k++) {
                await tx.execute(sql`INSERT INTO session_probe VALUES (${client}, ${k})`);
              }
              throw new Error("roll back");
            }),
          ).rejects.toThrow("roll back");
        }
      };
      await Promise.all(clients.map((c, k) => clientWork(c.db, k + 1)));
      stop = true;
      let written = 0;
      for (const loop of serverLoops) written += await loop;
      expect(written).toBeGreaterThan(0);
      // Every server write kept (none ran inside a client's rolled-back transaction), and no
      // client row left.
      const counts = rowsOf<{ client: number; n: number }>(
        await server.db.execute(
          sql`SELECT client, count(*)::int AS n FROM session_probe GROUP BY client ORDER BY client`,
        ),
      );
      expect(counts).toEqual([{ client: 0, n: written }]);
    } finally {
      for (const c of clients) await c.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
