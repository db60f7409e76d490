import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.ts";

describe("loadConfig", () => {
  it("applies the documented defaults", () => {
    expect(loadConfig({})).toEqual({
      PORT: 3000,
      HOST: "127.0.0.1",
      DATA_DIR: "./.cashrunway",
      CASHRUNWAY_ENV: "dev",
      LOG_LEVEL: "info",
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
