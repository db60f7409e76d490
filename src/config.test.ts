import { describe, expect, it } from "vitest";
import {
  burstLimitOf,
  ConfigError,
  CURSOR_SECRET_MIN_LENGTH,
  cursorSecretOf,
  DEV_CURSOR_SECRET,
  loadConfig,
} from "./config.ts";
import { DEFAULT_LEDGER_SCOPES } from "./connector/xero/config.ts";

describe("loadConfig", () => {
  it("applies the documented defaults", () => {
    expect(loadConfig({})).toEqual({
      PORT: 3000,
      HOST: "127.0.0.1",
      DATA_DIR: "./.cashrunway",
      CASHRUNWAY_ENV: "dev",
      LOG_LEVEL: "info",
      LEDGER_AUTHORIZE_URL: "https://login.xero.com/identity/connect/authorize",
      LEDGER_TOKEN_URL: "https://identity.xero.com/connect/token",
      LEDGER_REVOKE_URL: "https://identity.xero.com/connect/revocation",
      LEDGER_API_URL: "https://api.xero.com",
      LEDGER_SCOPES: DEFAULT_LEDGER_SCOPES,
      LEDGER_SYNC_MINUTES: 30,
      LEDGER_FULL_SYNC_HOURS: 24,
      LEDGER_DAILY_BUDGET: 5000,
    });
  });

  it("treats empty values as unset", () => {
    expect(loadConfig({ PORT: "", DATABASE_URL: "" }).PORT).toBe(3000);
  });

  it.each([
    ["PORT", "eighty"],
    ["PORT", "70000"],
    ["DATABASE_URL", "mysql://x"],
    ["CASHRUNWAY_NOW", "yesterday"],
    ["CASHRUNWAY_ENV", "staging"],
    ["LOG_LEVEL", "loud"],
    ["LOG_FORMAT", "xml"],
  ])("stops on a bad %s, naming the variable", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}=`));
  });

  it("accepts an instant with an offset for CASHRUNWAY_NOW", () => {
    expect(loadConfig({ CASHRUNWAY_NOW: "2026-06-30T09:00:00+10:00" }).CASHRUNWAY_NOW).toBe(
      "2026-06-30T09:00:00+10:00",
    );
  });
});

describe("BURST_LIMIT_PER_MINUTE", () => {
  it("is unset by default, where the burst cap is the spec's 60", () => {
    expect(loadConfig({}).BURST_LIMIT_PER_MINUTE).toBeUndefined();
    expect(burstLimitOf(loadConfig({}))).toBe(60);
  });

  it("sets the burst cap", () => {
    expect(burstLimitOf(loadConfig({ BURST_LIMIT_PER_MINUTE: "600" }))).toBe(600);
    expect(burstLimitOf(loadConfig({ BURST_LIMIT_PER_MINUTE: "1" }))).toBe(1);
  });

  it.each([
    ["abc", "must be a whole number of requests per minute"],
    ["1.5", "must be a whole number of requests per minute"],
    ["-5", "must be a whole number of requests per minute"],
    ["60/min", "must be a whole number of requests per minute"],
    ["0", "must be at least 1"],
    ["60001", "must be at most 60000"],
  ])("refuses %s with a message naming the variable and the rule", (value, rule) => {
    expect(() => loadConfig({ BURST_LIMIT_PER_MINUTE: value })).toThrow(ConfigError);
    expect(() => loadConfig({ BURST_LIMIT_PER_MINUTE: value })).toThrow(
      `BURST_LIMIT_PER_MINUTE=${JSON.stringify(value)}: ${rule}`,
    );
  });
});

describe("CURSOR_SECRET", () => {
  const secret = "s3cret-s3cret-s3cret-s3cret-s3cret";

  it("is optional in dev, where the public default seals cursors", () => {
    expect(loadConfig({}).CURSOR_SECRET).toBeUndefined();
    expect(cursorSecretOf(loadConfig({}))).toBe(DEV_CURSOR_SECRET);
    expect(cursorSecretOf(loadConfig({ CURSOR_SECRET: secret }))).toBe(secret);
  });

  it("is required in prod, and the dev default is refused there", () => {
    expect(() => loadConfig({ CASHRUNWAY_ENV: "prod" })).toThrow(
      /CURSOR_SECRET="": required when CASHRUNWAY_ENV=prod/,
    );
    expect(() => loadConfig({ CASHRUNWAY_ENV: "prod", CURSOR_SECRET: DEV_CURSOR_SECRET })).toThrow(
      /CURSOR_SECRET=.*public development default/,
    );
    const prod = loadConfig({
      CASHRUNWAY_ENV: "prod",
      CURSOR_SECRET: secret,
      LEDGER_TOKEN_KEY: "k".repeat(32),
    });
    expect(cursorSecretOf(prod)).toBe(secret);
  });

  it(`needs ${CURSOR_SECRET_MIN_LENGTH} characters, and a message never shows the value`, () => {
    const short = "x".repeat(CURSOR_SECRET_MIN_LENGTH - 1);
    for (const env of ["dev", "prod"]) {
      let message = "";
      try {
        loadConfig({ CASHRUNWAY_ENV: env, CURSOR_SECRET: short });
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        message = (e as Error).message;
      }
      expect(message).toContain(
        `CURSOR_SECRET=<${short.length} characters, not shown>: must be at least 32 characters`,
      );
      expect(message).not.toContain(short);
    }
    expect(
      loadConfig({ CURSOR_SECRET: "x".repeat(CURSOR_SECRET_MIN_LENGTH) }).CURSOR_SECRET,
    ).toHaveLength(CURSOR_SECRET_MIN_LENGTH);
  });
});

describe("LEDGER_*", () => {
  it("defaults to Xero's endpoints and the read-only scopes", () => {
    const config = loadConfig({});
    expect(config.LEDGER_AUTHORIZE_URL).toBe("https://login.xero.com/identity/connect/authorize");
    expect(config.LEDGER_TOKEN_URL).toBe("https://identity.xero.com/connect/token");
    expect(config.LEDGER_REVOKE_URL).toBe("https://identity.xero.com/connect/revocation");
    expect(config.LEDGER_API_URL).toBe("https://api.xero.com");
    expect(config.LEDGER_SYNC_MINUTES).toBe(30);
    expect(config.LEDGER_SCOPES.split(" ")).toContain("accounting.invoices.read");
    expect(config.LEDGER_SCOPES).not.toMatch(/accounting\.transactions(\s|$)/);
  });

  it("LEDGER_TOKEN_KEY is required in prod and never shown", () => {
    const base = { CASHRUNWAY_ENV: "prod", CURSOR_SECRET: "c".repeat(32) };
    expect(() => loadConfig(base)).toThrow(
      /LEDGER_TOKEN_KEY="": required when CASHRUNWAY_ENV=prod/,
    );
    let message = "";
    try {
      loadConfig({ ...base, LEDGER_TOKEN_KEY: "short-secret" });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain("LEDGER_TOKEN_KEY=<12 characters, not shown>");
    expect(message).not.toContain("short-secret");
  });
});
