import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { LedgerError } from "../errors.ts";

const VERSION = "v1";

export class SecretBoxError extends LedgerError {
  constructor(message: string, cause?: unknown) {
    super("secret_box", message, { cause });
    this.name = "SecretBoxError";
  }
}

/** Parses a 32-byte master key given as base64 or 64 hex characters. */
export function parseMasterKey(value: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, "hex") : Buffer.from(value, "base64");
  if (key.length !== 32) throw new SecretBoxError("master key must be 32 bytes (base64 or 64 hex characters)");
  return key;
}

/**
 * AES-256-GCM under the master key: `v1.<base64url(iv ‖ tag ‖ ciphertext)>`. `context` is bound as
 * additional data (e.g. the row id), so a ciphertext copied to another row does not decrypt.
 */
export function sealSecret(plaintext: string, key: Buffer, context = ""): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(context));
  const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), ct]).toString("base64url")}`;
}

export function openSecret(sealed: string, key: Buffer, context = ""): string {
  const [version, payload] = sealed.split(".");
  if (version !== VERSION || !payload) throw new SecretBoxError("unknown sealed secret format");
  const raw = Buffer.from(payload, "base64url");
  if (raw.length < 28) throw new SecretBoxError("sealed secret is truncated"); // IV (12) ‖ tag (16) ‖ ciphertext (0+)
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
  } catch (cause) {
    throw new SecretBoxError("sealed secret does not open with this key and context", cause);
  }
}

/** SHA-256 hex of a bearer/verify/session token: what the database stores instead of the token. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** A random, URL-safe token with a readable prefix (e.g. `whsec_…`), 256 bits of entropy by default. */
export function generateToken(prefix: string, bytes = 32): string {
  return `${prefix}${randomBytes(bytes).toString("base64url")}`;
}
