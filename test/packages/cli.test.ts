import { chmod, mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commandPaths, EXIT, run } from "@cashrunway/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJson } from "../helpers/api.ts";
import { orgWithKey } from "../helpers/metering.ts";
import { testDriver } from "../helpers/test-db.ts";
import { ALL_SCOPES, type DemoWorld, demoWorld, type Served, serve, WORLD_NOW } from "./world.ts";

/**
 * A body with its `nextCursor` replaced by whether it has one: cursors are sealed with a fresh
 * nonce on every answer, so two answers of the same page carry different (equally valid) ones.
 */
function withoutCursor(body: Record<string, unknown>) {
  return "nextCursor" in body ? { ...body, nextCursor: body.nextCursor !== null } : body;
}

/** Runs `runway …` in-process with its own config file; returns the exit code and output. */
async function runway(argv: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await run(argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env,
  });
  return { code, stdout, stderr };
}

describe(`runway, the agent CLI (${testDriver})`, () => {
  let w: DemoWorld;
  let served: Served;
  let home: string;
  beforeAll(async () => {
    w = await demoWorld();
    served = await serve(w.t.app);
    home = await mkdtemp(join(tmpdir(), "runway-"));
  }, 240_000);
  afterAll(() => served?.close());

  it("auth login refuses a bad token or an unreachable service and saves nothing", async () => {
    const config = join(home, "refused", "runway.json");
    const good = await w.key(["READ_SUMMARY"]);
    const bad = `${good.slice(0, -8)}abcdefgh`;
    const refused = await runway(["auth", "login", "--token", bad, "--url", served.url], {
      CASHRUNWAY_CONFIG: config,
    });
    expect(refused.code, refused.stderr).toBe(EXIT.auth);
    expect(refused.stderr).toMatch(/unauthorized/);
    await expect(stat(config)).rejects.toMatchObject({ code: "ENOENT" });

    const down = await runway(["auth", "login", "--token", good, "--url", "http://127.0.0.1:1"], {
      CASHRUNWAY_CONFIG: config,
    });
    expect(down.code).toBe(EXIT.unreachable);
    await expect(stat(config)).rejects.toMatchObject({ code: "ENOENT" });

    const missing = await runway(["auth", "login"], { CASHRUNWAY_CONFIG: config });
    expect(missing.code).toBe(EXIT.usage);
  }, 180_000);

  it("auth login validates against /status, then saves the profile in a 0600 file", async () => {
    const config = join(home, "saved", "runway.json");
    const key = await w.key(ALL_SCOPES);
    const login = await runway(["auth", "login", "--token", key, "--url", served.url], {
      CASHRUNWAY_CONFIG: config,
    });
    expect(login.code, login.stderr).toBe(EXIT.ok);
    expect(login.stdout).not.toContain(key);
    expect((await stat(config)).mode & 0o777).toBe(0o600);
    expect((await stat(join(home, "saved"))).mode & 0o777).toBe(0o700);
    const saved = JSON.parse(await readFile(config, "utf8"));
    expect(saved).toMatchObject({
      defaultProfile: "default",
      profiles: { default: { url: served.url, token: key } },
    });

    // A second profile; a file left readable by others is tightened on the next save.
    await chmod(config, 0o644);
    const other = await runway(
      [
        "auth",
        "login",
        "--token",
        await w.key(["READ_BANK"]),
        "--url",
        served.url,
        "--profile",
        "bank",
      ],
      { CASHRUNWAY_CONFIG: config },
    );
    expect(other.code, other.stderr).toBe(EXIT.ok);
    expect((await stat(config)).mode & 0o777).toBe(0o600);
    const status = await runway(["auth", "status", "--all", "--json"], {
      CASHRUNWAY_CONFIG: config,
    });
    expect(status.code, status.stderr).toBe(EXIT.ok);
    const both = JSON.parse(status.stdout);
    expect(both.default.key.scopes).toEqual(ALL_SCOPES);
    expect(both.bank.key.scopes).toEqual(["READ_BANK"]);
    // --profile picks the saved key; the bank key cannot read invoices (exit 3, the scope named).
    const denied = await runway(["invoices", "list", "--profile", "bank"], {
      CASHRUNWAY_CONFIG: config,
    });
    expect(denied.code).toBe(EXIT.auth);
    expect(denied.stderr).toMatch(/insufficient_scope.*READ_INVOICES/);

    const logout = await runway(["auth", "logout", "--profile", "bank"], {
      CASHRUNWAY_CONFIG: config,
    });
    expect(logout.code).toBe(EXIT.ok);
    expect(Object.keys(JSON.parse(await readFile(config, "utf8")).profiles)).toEqual(["default"]);
  }, 180_000);

  it("prints exactly the endpoint's body with --json, for every command", async () => {
    const config = join(home, "json", "runway.json");
    const key = await w.key(ALL_SCOPES);
    expect(
      (
        await runway(["auth", "login", "--token", key, "--url", served.url], {
          CASHRUNWAY_CONFIG: config,
        })
      ).code,
    ).toBe(0);
    const env = { CASHRUNWAY_CONFIG: config };
    const firstId = async (path: string, member: string) =>
      (await getJson<Record<string, { id: string }[]>>(w.t.app, path, key)).body[member]?.[0]?.id ??
      "";
    const ids: Record<string, string> = {
      "/api/agent/contacts/{id}": await firstId("/api/agent/contacts", "contacts"),
      "/api/agent/credit-notes/{id}": await firstId("/api/agent/credit-notes", "creditNotes"),
      "/api/agent/purchase-orders/{id}": await firstId(
        "/api/agent/purchase-orders",
        "purchaseOrders",
      ),
    };
    const covered = new Set<string>();
    for (const { command, path } of commandPaths()) {
      const id = ids[path];
      // The key's last-used stamp is written with the audit rows, batched: committed before each
      // pair, `status` shows the same stamp to the command and to the direct call.
      await w.t.flushAudit();
      const cli = await runway([...command.split(" "), ...(id ? [id] : []), "--json"], env);
      expect(cli.code, `${command}: ${cli.stderr}`).toBe(EXIT.ok);
      const endpoint = (id ? path.replace("{id}", encodeURIComponent(id)) : path).replace(
        "{orgId}",
        w.orgId,
      );
      const direct = await getJson(w.t.app, endpoint, key);
      expect(direct.status, `${endpoint}: ${direct.text.slice(0, 200)}`).toBe(200);
      expect(withoutCursor(JSON.parse(cli.stdout)), command).toEqual(withoutCursor(direct.body));
      covered.add(path);
    }
    // One command per endpoint of the OpenAPI document (flat forms and the nested-only brief).
    const { default: document } = await import("@cashrunway/client/openapi.json", {
      with: { type: "json" },
    });
    const endpoints = Object.keys(document.paths).filter(
      (p) =>
        p !== "/api/agent/openapi.json" && (!p.includes("{orgId}") || p.endsWith("/daily-brief")),
    );
    expect([...covered].sort()).toEqual(endpoints.sort());

    // Filters map onto the query: a page of AUTHORISED invoices, two rows.
    const page = await runway(
      ["invoices", "list", "--status", "AUTHORISED", "--limit", "2", "--json"],
      env,
    );
    const directPage = await getJson(w.t.app, "/api/agent/invoices?status=AUTHORISED&limit=2", key);
    expect(withoutCursor(JSON.parse(page.stdout))).toEqual(withoutCursor(directPage.body));
  }, 180_000);

  it("prints human tables by default", async () => {
    const env = {
      CASHRUNWAY_TOKEN: await w.key(ALL_SCOPES),
      CASHRUNWAY_URL: served.url,
      CASHRUNWAY_CONFIG: join(home, "none.json"),
    };
    const revenue = await runway(["revenue", "summary", "--top-n", "3"], env);
    expect(revenue.code, revenue.stderr).toBe(EXIT.ok);
    expect(revenue.stdout).toMatch(/Top customer\s+Count\s+Amount\n-+/);
    const forecast = await runway(["forecast", "--weeks", "4"], env);
    expect(forecast.stdout.match(/^\d{4}-\d{2}-\d{2} /gm)).toHaveLength(4);
    // --variance and --variance-horizon reach the API; the track record follows the weeks.
    const record = await runway(
      ["forecast", "--variance", "--variance-horizon", "1", "--json"],
      env,
    );
    expect(record.code, record.stderr).toBe(EXIT.ok);
    const direct = await getJson(
      w.t.app,
      "/api/agent/forecast?variance=true&varianceHorizon=1",
      env.CASHRUNWAY_TOKEN,
    );
    expect(JSON.parse(record.stdout).variance).toEqual(direct.body.variance);
    expect((await runway(["forecast", "--variance"], env)).stdout).toMatch(/\n\nTrack record/);
    const invoices = await runway(["invoices", "list", "--limit", "3"], env);
    // A page can be shorter than --limit: rows of the sensitive contact are withheld.
    expect(invoices.stdout).toMatch(/\n\d of \d+ invoices\.\nMore: --cursor \S+\n/);
  }, 180_000);

  it("exits 2 on usage errors, 3 on auth errors, 4 on rate limits", async () => {
    const env = { CASHRUNWAY_URL: served.url, CASHRUNWAY_CONFIG: join(home, "codes.json") };
    const key = await w.key(["READ_SUMMARY"]);
    expect((await runway(["nonsense"], env)).code).toBe(EXIT.usage);
    expect(
      (await runway(["revenue", "summary", "--bogus"], { ...env, CASHRUNWAY_TOKEN: key })).code,
    ).toBe(EXIT.usage);
    expect((await runway(["contacts", "show"], { ...env, CASHRUNWAY_TOKEN: key })).code).toBe(
      EXIT.usage,
    );
    expect(
      (await runway(["forecast", "--weeks", "x"], { ...env, CASHRUNWAY_TOKEN: key })).code,
    ).toBe(EXIT.usage);
    // A value the API refuses (400 invalid_parameter) is a usage error too.
    const badDate = await runway(["revenue", "summary", "--from", "2024-13-01"], {
      ...env,
      CASHRUNWAY_TOKEN: key,
    });
    expect(badDate.code).toBe(EXIT.usage);
    expect(badDate.stderr).toMatch(/invalid_parameter/);
    expect((await runway(["status"], env)).code).toBe(EXIT.auth); // not logged in
    // A wrong token: the last character changed (never to itself, which a fixed "0" would be for
    // a key that already ends in "0").
    const wrongToken = `${key.slice(0, -1)}${key.endsWith("0") ? "1" : "0"}`;
    expect((await runway(["status", "--token", wrongToken], env)).code).toBe(EXIT.auth);
    expect((await runway(["bank-accounts"], { ...env, CASHRUNWAY_TOKEN: key })).code).toBe(
      EXIT.auth,
    );

    const free = await orgWithKey(w.db, { plan: "Free", scopes: ["READ_SUMMARY"], now: WORLD_NOW });
    const freeEnv = { ...env, CASHRUNWAY_TOKEN: free.key.key };
    for (let i = 0; i < 10; i++)
      expect((await runway(["contacts", "summary", "--json"], freeEnv)).code).toBe(0);
    const limited = await runway(["contacts", "summary"], freeEnv);
    expect(limited.code).toBe(EXIT.rateLimited);
    expect(limited.stderr).toMatch(/credits_exhausted.*retry in \d+ s/);
  }, 180_000);

  it("saves nothing readable by others even when the folder exists", async () => {
    const dir = await mkdtemp(join(tmpdir(), "runway-existing-"));
    const config = join(dir, "runway.json");
    await writeFile(config, JSON.stringify({ defaultProfile: "default", profiles: {} }), {
      mode: 0o644,
    });
    const r = await runway(
      ["auth", "login", "--token", await w.key(["READ_BANK"]), "--url", served.url],
      {
        CASHRUNWAY_CONFIG: config,
      },
    );
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect((await stat(config)).mode & 0o777).toBe(0o600);
  });
});
