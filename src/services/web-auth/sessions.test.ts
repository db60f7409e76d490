import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createTestOrg } from "../../../test/helpers/factories.ts";
import { getTestDatabase, testDriver } from "../../../test/helpers/test-db.ts";
import { webSessions } from "../../db/schema/index.ts";
import {
  createSession,
  endSession,
  endUserSessions,
  loadSession,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  setSessionOrg,
} from "./sessions.ts";
import { digestToken, newRandomToken } from "./tokens.ts";

const t0 = new Date("2026-03-02T08:00:00.000Z");
const at = (ms: number) => new Date(t0.getTime() + ms);

describe(`web sessions (${testDriver})`, () => {
  it("loads a new session by its token, storing only the token's digest", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const s = await createSession(db, { userId: org.ownerUserId, orgId: org.id, now: t0 });
    const view = await loadSession(db, s.token, at(1000));
    expect(view).toMatchObject({ userId: org.ownerUserId, orgId: org.id, csrfToken: s.csrfToken });
    expect(view?.email).toContain("@");
    const rows = await db.select().from(webSessions).where(eq(webSessions.userId, org.ownerUserId));
    expect(rows).toHaveLength(1);
    expect(rows[0]?.tokenDigest).toBe(digestToken(s.token));
    expect(JSON.stringify(rows)).not.toContain(s.token);
    expect(s.expiresAt).toEqual(at(SESSION_ABSOLUTE_MS));
  });

  it("refuses unknown and malformed tokens", async () => {
    const { db } = await getTestDatabase();
    expect(await loadSession(db, newRandomToken(), t0)).toBeNull();
    expect(await loadSession(db, "not-a-token", t0)).toBeNull();
    expect(await loadSession(db, undefined, t0)).toBeNull();
  });

  it("ends a session idle for too long, and keeps an active one alive", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const idle = await createSession(db, { userId: org.ownerUserId, orgId: null, now: t0 });
    const active = await createSession(db, { userId: org.ownerUserId, orgId: null, now: t0 });
    // Activity just before the idle limit moves it forward.
    expect(await loadSession(db, active.token, at(SESSION_IDLE_MS - 60_000))).not.toBeNull();
    expect(await loadSession(db, active.token, at(SESSION_IDLE_MS + 60_000))).not.toBeNull();
    expect(await loadSession(db, idle.token, at(SESSION_IDLE_MS + 60_000))).toBeNull();
    // An expired session is deleted, not just refused.
    const left = await db
      .select()
      .from(webSessions)
      .where(eq(webSessions.tokenDigest, digestToken(idle.token)));
    expect(left).toHaveLength(0);
  });

  it("ends every session at its absolute lifetime, however active", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const s = await createSession(db, { userId: org.ownerUserId, orgId: null, now: t0 });
    for (let ms = SESSION_IDLE_MS / 2; ms < SESSION_ABSOLUTE_MS; ms += SESSION_IDLE_MS / 2) {
      expect(await loadSession(db, s.token, at(ms))).not.toBeNull();
    }
    expect(await loadSession(db, s.token, at(SESSION_ABSOLUTE_MS))).toBeNull();
  });

  it("ends one session on sign-out, and all of a user's sessions on demand", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const a = await createSession(db, { userId: org.ownerUserId, orgId: null, now: t0 });
    const b = await createSession(db, { userId: org.ownerUserId, orgId: null, now: t0 });
    await endSession(db, digestToken(a.token));
    expect(await loadSession(db, a.token, t0)).toBeNull();
    expect(await loadSession(db, b.token, t0)).not.toBeNull();
    expect(await endUserSessions(db, org.ownerUserId)).toBe(1);
    expect(await loadSession(db, b.token, t0)).toBeNull();
  });

  it("remembers the selected organisation", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const s = await createSession(db, { userId: org.ownerUserId, orgId: null, now: t0 });
    await setSessionOrg(db, digestToken(s.token), org.id);
    expect((await loadSession(db, s.token, t0))?.orgId).toBe(org.id);
  });
});
