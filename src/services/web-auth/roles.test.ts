import { describe, expect, it } from "vitest";
import { ROLES, type Role } from "../../db/schema/index.ts";
import { can, WEB_ACTIONS, type WebAction } from "./roles.ts";

/** The documented rights (docs/web.md), one row per action: owner, admin, member. */
const TABLE: Record<WebAction, [owner: boolean, admin: boolean, member: boolean]> = {
  "dashboard.view": [true, true, true],
  "keys.view": [true, true, true],
  "keys.manage": [true, true, false],
  "keys.own": [true, true, true],
  "keys.sensitive": [true, true, false],
  "keys.govern": [true, false, false],
  "sensitive.view": [true, true, true],
  "sensitive.manage": [true, true, false],
  "partners.view": [true, true, true],
  "partners.manage": [true, true, false],
  "forecast.manage": [true, true, false],
  "billing.view": [true, false, false],
  "billing.manage": [true, false, false],
};

describe("role rights", () => {
  for (const action of WEB_ACTIONS) {
    ROLES.forEach((role, i) => {
      const expected = TABLE[action][i];
      it(`${role} ${expected ? "may" : "may not"} ${action}`, () => {
        expect(can(role, action)).toBe(expected);
      });
    });
  }

  it("grants nothing without a role, or to an unknown role or action (fail closed)", () => {
    for (const action of WEB_ACTIONS) {
      expect(can(null, action)).toBe(false);
      expect(can(undefined, action)).toBe(false);
      expect(can("superuser" as Role, action)).toBe(false);
      expect(can("toString" as Role, action)).toBe(false);
    }
    expect(can("owner", "keys.delete-everything" as WebAction)).toBe(false);
  });
});
