import { describe, expect, it } from "vitest";
import { createTestOrg } from "../../../test/helpers/factories.ts";
import { getTestDatabase, testDriver } from "../../../test/helpers/test-db.ts";
import type { Db } from "../../db/client.ts";
import { createUser } from "../users/create-user.ts";
import { setDemoOwnerPassword, setUserPassword } from "./set-password.ts";
import { LOCKOUT, signIn } from "./sign-in.ts";

const t0 = new Date("2026-03-02T08:00:00.000Z");
const at = (ms: number) => new Date(t0.getTime() + ms);
const PASSWORD = "a perfectly fine passphrase";

let n = 0;
/** A user with a password and a unique email (attempts are counted per email). */
async function userWithPassword(db: Db) {
  n += 1;
  const email = `signin-${n}-${Math.random().toString(36).slice(2, 8)}@example.test`;
  const user = await createUser(db, { email }, t0);
  await setUserPassword(db, {
    target: { userId: user.id },
    password: PASSWORD,
    now: at(-3_600_000),
  });
  return { email, userId: user.id };
}

function ip(): string {
  return `10.0.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
}

describe(`sign-in (${testDriver})`, () => {
  it("accepts the right password, case-insensitively on the email", async () => {
    const { db } = await getTestDatabase();
    const u = await userWithPassword(db);
    const r = await signIn(db, {
      email: ` ${u.email.toUpperCase()} `,
      password: PASSWORD,
      ip: ip(),
      now: t0,
    });
    expect(r).toEqual({ ok: true, userId: u.userId });
  });

  it("counts attempts sent at the same moment against each other: 5 of 30 are checked", async () => {
    const { db } = await getTestDatabase();
    const u = await userWithPassword(db);
    // Each from its own address, so only the per-email limit applies.
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        signIn(db, { email: u.email, password: `wrong guess ${i}`, ip: ip(), now: t0 }),
      ),
    );
    const reasons = results.map((r) => (r.ok ? "ok" : r.reason));
    expect(reasons.filter((r) => r === "invalid_credentials")).toHaveLength(
      LOCKOUT.maxFailuresPerEmail,
    );
    expect(reasons.filter((r) => r === "locked")).toHaveLength(30 - LOCKOUT.maxFailuresPerEmail);
    // Locked now, even for the right password.
    const right = await signIn(db, { email: u.email, password: PASSWORD, ip: ip(), now: t0 });
    expect(right).toMatchObject({ ok: false, reason: "locked" });
  });

  it("gives the same answer for a wrong password, an unknown email and a user without password", async () => {
    const { db } = await getTestDatabase();
    const u = await userWithPassword(db);
    const noPasswordEmail = `nopw-${Math.random().toString(36).slice(2)}@example.test`;
    const noPassword = await createUser(db, { email: noPasswordEmail }, t0);
    expect(noPassword.created).toBe(true);
    const answers = [
      await signIn(db, { email: u.email, password: "wrong password!!", ip: ip(), now: t0 }),
      await signIn(db, {
        email: "nobody-here@example.test",
        password: PASSWORD,
        ip: ip(),
        now: t0,
      }),
      await signIn(db, { email: noPasswordEmail, password: PASSWORD, ip: ip(), now: t0 }),
    ];
    for (const a of answers) expect(a).toEqual({ ok: false, reason: "invalid_credentials" });
  });

  it("locks an email after 5 failures in 15 minutes, refusing even the right password, then lets it go", async () => {
    const { db } = await getTestDatabase();
    const u = await userWithPassword(db);
    for (let i = 0; i < LOCKOUT.maxFailuresPerEmail; i++) {
      const r = await signIn(db, {
        email: u.email,
        password: `guess ${i} guess`,
        ip: ip(),
        now: at(i * 1000),
      });
      expect(r).toEqual({ ok: false, reason: "invalid_credentials" });
    }
    const locked = await signIn(db, {
      email: u.email,
      password: PASSWORD,
      ip: ip(),
      now: at(10_000),
    });
    expect(locked).toEqual({ ok: false, reason: "locked", retryAfterSeconds: 15 * 60 - 10 });
    // The lock ends when the oldest counted failure leaves the window.
    const after = await signIn(db, {
      email: u.email,
      password: PASSWORD,
      ip: ip(),
      now: at(LOCKOUT.windowMs + 1),
    });
    expect(after).toEqual({ ok: true, userId: u.userId });
  });

  it("locks unknown emails the same way, so the lockout reveals nothing", async () => {
    const { db } = await getTestDatabase();
    const email = `ghost-${Math.random()}@example.test`;
    for (let i = 0; i < LOCKOUT.maxFailuresPerEmail; i++) {
      await signIn(db, { email, password: "whatever it is", ip: ip(), now: at(i) });
    }
    const r = await signIn(db, { email, password: "whatever it is", ip: ip(), now: at(100) });
    expect(r).toMatchObject({ ok: false, reason: "locked" });
  });

  it("restarts the count after a success", async () => {
    const { db } = await getTestDatabase();
    const u = await userWithPassword(db);
    const address = ip();
    for (let i = 0; i < LOCKOUT.maxFailuresPerEmail - 1; i++) {
      await signIn(db, { email: u.email, password: "nope nope nope", ip: address, now: at(i) });
    }
    expect(
      await signIn(db, { email: u.email, password: PASSWORD, ip: address, now: at(10) }),
    ).toMatchObject({ ok: true });
    for (let i = 0; i < LOCKOUT.maxFailuresPerEmail - 1; i++) {
      await signIn(db, {
        email: u.email,
        password: "nope nope nope",
        ip: address,
        now: at(20 + i),
      });
    }
    expect(
      await signIn(db, { email: u.email, password: PASSWORD, ip: address, now: at(40) }),
    ).toMatchObject({ ok: true });
  });

  it("restarts the count when an operator sets a new password", async () => {
    const { db } = await getTestDatabase();
    const u = await userWithPassword(db);
    for (let i = 0; i < LOCKOUT.maxFailuresPerEmail; i++) {
      await signIn(db, { email: u.email, password: "nope nope nope", ip: ip(), now: at(i) });
    }
    expect(
      await signIn(db, { email: u.email, password: PASSWORD, ip: ip(), now: at(10) }),
    ).toMatchObject({
      reason: "locked",
    });
    await setUserPassword(db, {
      target: { email: u.email },
      password: "a brand new passphrase",
      now: at(20),
    });
    expect(
      await signIn(db, {
        email: u.email,
        password: "a brand new passphrase",
        ip: ip(),
        now: at(30),
      }),
    ).toMatchObject({ ok: true });
  });

  it("locks a client address that fails 20 times across many emails", async () => {
    const { db } = await getTestDatabase();
    const u = await userWithPassword(db);
    const address = ip();
    for (let i = 0; i < LOCKOUT.maxFailuresPerAddress; i++) {
      await signIn(db, {
        email: `spray-${i}-${Math.random()}@example.test`,
        password: "x",
        ip: address,
        now: at(i),
      });
    }
    expect(
      await signIn(db, { email: u.email, password: PASSWORD, ip: address, now: at(100) }),
    ).toMatchObject({
      reason: "locked",
    });
    expect(
      await signIn(db, { email: u.email, password: PASSWORD, ip: ip(), now: at(100) }),
    ).toMatchObject({ ok: true });
    // 22 deliberately slow password hashes: a correctness test, given room on a loaded machine.
  }, 120_000);

  it("gives the demo owner a generated password that signs in", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const demo = await setDemoOwnerPassword(db, org.ownerUserId, t0);
    expect(demo.password.length).toBeGreaterThanOrEqual(20);
    expect(
      await signIn(db, { email: demo.email, password: demo.password, ip: ip(), now: at(1) }),
    ).toEqual({
      ok: true,
      userId: org.ownerUserId,
    });
  });
});
