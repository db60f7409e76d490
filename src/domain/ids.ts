import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lower case

/** 20 base32 characters = 100 random bits; enough that collisions never matter. */
export function randomToken(length = 20): string {
  const bytes = randomBytes(length);
  let out = "";
  for (let i = 0; i < length; i++) out += ALPHABET[(bytes[i] ?? 0) & 31];
  return out;
}

export type IdPrefix =
  | "org"
  | "usr"
  | "bil"
  | "prt"
  | "key"
  | "con"
  | "syn"
  | "acc"
  | "bank"
  | "ctc"
  | "ci"
  | "cil"
  | "pay"
  | "cn"
  | "cna"
  | "cnl"
  | "po"
  | "pol"
  | "btx";

/** Service-owned ids: a readable prefix and random characters, e.g. `org_5kq…`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomToken()}`;
}
