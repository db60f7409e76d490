import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/*
 * Ledger tokens at rest: AES-256-GCM under a key derived from LEDGER_TOKEN_KEY (SHA-256 of it),
 * a fresh 96-bit nonce per value, and the owning row's id as associated data, so a sealed value
 * copied onto another connection does not open. Format: `v1.<nonce>.<tag>.<ciphertext>`, each
 * part base64url.
 */

export class SealedValueError extends Error {
  constructor() {
    super("a sealed ledger token could not be opened (wrong LEDGER_TOKEN_KEY?)");
    this.name = "SealedValueError";
  }
}

export class TokenSealer {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHash("sha256").update(`cashrunway ledger tokens\0${secret}`).digest();
  }

  seal(plain: string, boundTo: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, nonce);
    cipher.setAAD(Buffer.from(boundTo, "utf8"));
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return ["v1", nonce, cipher.getAuthTag(), body]
      .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
      .join(".");
  }

  open(sealed: string, boundTo: string): string {
    const [version, nonce, tag, body] = sealed.split(".");
    if (version !== "v1" || !nonce || !tag || body === undefined) throw new SealedValueError();
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(nonce, "base64url"));
      decipher.setAAD(Buffer.from(boundTo, "utf8"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([
        decipher.update(Buffer.from(body, "base64url")),
        decipher.final(),
      ]).toString("utf8");
    } catch {
      throw new SealedValueError();
    }
  }
}
