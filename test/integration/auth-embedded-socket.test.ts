import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openEmbedded } from "../../src/db/client.ts";
import { authenticateKey } from "../../src/services/keys/authenticate-key.ts";
import { createApiKey } from "../../src/services/keys/create-api-key.ts";
import { resolveTargetOrg } from "../../src/services/keys/resolve-target-org.ts";
import { createOrganisation } from "../../src/services/orgs/create-organisation.ts";
import { TEST_NOW } from "../helpers/api.ts";

describe("key lookups through the embedded database's shared socket", () => {
  it("work from one connection after another (no named statements left in the shared session)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cr-keys-socket-"));
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
