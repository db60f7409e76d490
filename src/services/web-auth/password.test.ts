import { describe, expect, it } from "vitest";
import { InvalidParameterError } from "../errors.ts";
import {
  generatePassword,
  hashPassword,
  MIN_PASSWORD_LENGTH,
  validateNewPassword,
  verifyPassword,
} from "./password.ts";

describe("password hashing", () => {
  it("verifies the right password and refuses a wrong one", async () => {
    const stored = await hashPassword("correct horse battery staple");
    expect(await verifyPassword("correct horse battery staple", stored)).toBe(true);
    expect(await verifyPassword("correct horse battery stapler", stored)).toBe(false);
    expect(await verifyPassword("", stored)).toBe(false);
  });

  it("stores scrypt with its parameters and a random salt, never the password", async () => {
    const a = await hashPassword("the same password");
    const b = await hashPassword("the same password");
    expect(a).toMatch(/^scrypt\$15\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain("the same password");
    expect(await verifyPassword("the same password", b)).toBe(true);
  });

  it("never matches a malformed, foreign or tampered stored value", async () => {
    const stored = await hashPassword("a long enough password");
    for (const bad of [
      "",
      "plain text",
      stored.replace("scrypt$", "bcrypt$"),
      stored.replace("scrypt$15$", "scrypt$40$"), // would demand terabytes: refused, not attempted
      stored.replace("$8$1$", "$0$1$"),
      stored.split("$").slice(0, 5).join("$"),
    ]) {
      expect(await verifyPassword("a long enough password", bad)).toBe(false);
    }
  });

  it("refuses passwords that are too short or too long", () => {
    expect(() => validateNewPassword("x".repeat(MIN_PASSWORD_LENGTH - 1))).toThrow(
      InvalidParameterError,
    );
    expect(() => validateNewPassword("x".repeat(257))).toThrow(InvalidParameterError);
    expect(() => validateNewPassword("x".repeat(MIN_PASSWORD_LENGTH))).not.toThrow();
  });

  it("generates long random passwords that pass validation", () => {
    const a = generatePassword();
    expect(a).toMatch(/^[0-9a-hjkmnp-tv-z]{5}(-[0-9a-hjkmnp-tv-z]{5}){3}$/);
    expect(generatePassword()).not.toBe(a);
    expect(() => validateNewPassword(a)).not.toThrow();
  });
});
