import { describe, expect, it } from "vitest";
import { createTestKey, TEST_NOW } from "../../../test/helpers/api.ts";
import { createTestOrg } from "../../../test/helpers/factories.ts";
import { getTestDatabase, testDriver } from "../../../test/helpers/test-db.ts";
import { recordAgentRequest } from "../../db/queries/audit.ts";
import { InvalidParameterError } from "../errors.ts";
import { listAuditEvents } from "./list-audit-events.ts";

describe(`listAuditEvents (${testDriver})`, () => {
  it("pages a key's requests newest first, with a cursor, and only that key's", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const key = await createTestKey(db, {
      kind: "ORG",
      orgId: org.id,
      label: "a",
      scopes: ["READ_BANK"],
    });
    const other = await createTestKey(db, {
      kind: "ORG",
      orgId: org.id,
      label: "b",
      scopes: ["READ_BANK"],
    });
    // Five requests a second apart, two of them in the same millisecond (ordered by id).
    const instants = [0, 1000, 2000, 2000, 3000].map((ms) => new Date(TEST_NOW.getTime() + ms));
    for (const [i, at] of instants.entries()) {
      await recordAgentRequest(db, {
        keyId: key.id,
        orgId: org.id,
        method: "GET",
        route: `/api/agent/r${i}`,
        status: 200,
        sensitive: false,
        requestId: `req-${i}`,
        at,
      });
    }
    await recordAgentRequest(db, {
      keyId: other.id,
      orgId: org.id,
      method: "GET",
      route: "/api/agent/other",
      status: 200,
      sensitive: false,
      requestId: "other",
      at: TEST_NOW,
    });

    const first = await listAuditEvents(db, { keyId: key.id, limit: 2 });
    expect(first.events.map((e) => e.requestId)).toEqual(["req-4", "req-3"]);
    expect(first.nextCursor).not.toBeNull();
    const second = await listAuditEvents(db, {
      keyId: key.id,
      limit: 2,
      cursor: first.nextCursor ?? "",
    });
    expect(second.events.map((e) => e.requestId)).toEqual(["req-2", "req-1"]);
    const third = await listAuditEvents(db, {
      keyId: key.id,
      limit: 2,
      cursor: second.nextCursor ?? "",
    });
    expect(third.events.map((e) => e.requestId)).toEqual(["req-0"]);
    expect(third.nextCursor).toBeNull();
    expect(first.events[0]).toMatchObject({
      method: "GET",
      route: "/api/agent/r4",
      status: 200,
      sensitive: false,
      orgId: org.id,
    });
  });

  it("refuses a cursor it did not give", async () => {
    const { db } = await getTestDatabase();
    await expect(listAuditEvents(db, { keyId: "key_x", cursor: "garbage" })).rejects.toBeInstanceOf(
      InvalidParameterError,
    );
  });
});
