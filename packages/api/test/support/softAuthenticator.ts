import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";

// A software WebAuthn authenticator for tests: one ES256 (P-256) resident credential, "none" attestation,
// user verification, a signature counter. Builds authenticatorData, clientDataJSON, the CBOR attestation object
// and assertions with node:crypto, exactly as a browser would hand them to the server (…ResponseJSON).

type Cbor = number | string | Uint8Array | Cbor[] | Map<Cbor, Cbor> | { [k: string]: Cbor };

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 256) return Buffer.from([(major << 5) | 24, n]);
  if (n < 65536) return Buffer.from([(major << 5) | 25, n >> 8, n & 255]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}

/** Minimal CBOR encoder (ints, text, bytes, arrays, maps). */
export function cbor(v: Cbor): Buffer {
  if (typeof v === "number") return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (typeof v === "string") {
    const b = Buffer.from(v, "utf8");
    return Buffer.concat([head(3, b.length), b]);
  }
  if (v instanceof Uint8Array) return Buffer.concat([head(2, v.length), Buffer.from(v)]);
  if (Array.isArray(v)) return Buffer.concat([head(4, v.length), ...v.map(cbor)]);
  const entries = v instanceof Map ? [...v.entries()] : Object.entries(v);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, val]) => [cbor(k), cbor(val)])]);
}

const b64u = (b: Uint8Array | string) => Buffer.from(b).toString("base64url");
const sha256 = (b: Uint8Array | string) => createHash("sha256").update(b).digest();

export interface SoftAuthenticatorOptions {
  rpId?: string;
  /** Reported signature counter behaviour: "increment" (default) or "zero" (always 0, like many synced passkeys). */
  counter?: "increment" | "zero";
  /** COSE algorithm to claim (default -7, ES256); -8 builds an Ed25519 key. */
  alg?: -7 | -8;
}

export class SoftAuthenticator {
  readonly rpId: string;
  readonly credentialId = randomBytes(16);
  private readonly privateKey: KeyObject;
  /** 32-byte P-256 private key (hex, 0x-prefixed): the same key as viem's `Account.fromHeadlessWebAuthn`. */
  readonly p256PrivateKeyHex: `0x${string}`;
  readonly x: Buffer;
  readonly y: Buffer;
  signCount = 0;
  userHandle: string | undefined;
  private readonly mode: "increment" | "zero";
  private readonly alg: -7 | -8;

  constructor(options: SoftAuthenticatorOptions = {}) {
    this.rpId = options.rpId ?? "localhost";
    this.mode = options.counter ?? "increment";
    this.alg = options.alg ?? -7;
    if (this.alg === -8) {
      const { privateKey, publicKey } = generateKeyPairSync("ed25519");
      this.privateKey = privateKey;
      this.x = Buffer.from(publicKey.export({ format: "jwk" }).x!, "base64url");
      this.y = Buffer.alloc(0);
      this.p256PrivateKeyHex = "0x";
      return;
    }
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    this.privateKey = privateKey;
    const jwk = publicKey.export({ format: "jwk" });
    this.x = Buffer.from(jwk.x!, "base64url");
    this.y = Buffer.from(jwk.y!, "base64url");
    this.p256PrivateKeyHex = `0x${Buffer.from(privateKey.export({ format: "jwk" }).d!, "base64url").toString("hex")}`;
  }

  /** A second authenticator holding a copy of this one's key (a "clone"), counter included. */
  clone(): SoftAuthenticator {
    const copy = Object.create(SoftAuthenticator.prototype) as SoftAuthenticator;
    Object.assign(copy, this);
    return copy;
  }

  get credentialIdB64u(): string {
    return b64u(this.credentialId);
  }

  /** The uncompressed public key `0x04‖x‖y`. */
  get publicKeyUncompressed(): string {
    return `0x04${this.x.toString("hex")}${this.y.toString("hex")}`;
  }

  private coseKey(): Buffer {
    if (this.alg === -8)
      return cbor(
        new Map<Cbor, Cbor>([
          [1, 1],
          [3, -8],
          [-1, 6],
          [-2, this.x],
        ]),
      );
    return cbor(
      new Map<Cbor, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, this.x],
        [-3, this.y],
      ]),
    );
  }

  private nextCount(): number {
    if (this.mode === "zero") return 0;
    this.signCount += 1;
    return this.signCount;
  }

  private authData(flags: number, count: number, attested?: Buffer): Buffer {
    const c = Buffer.alloc(4);
    c.writeUInt32BE(count);
    return Buffer.concat([sha256(this.rpId), Buffer.from([flags]), c, ...(attested ? [attested] : [])]);
  }

  private sign(data: Buffer): Buffer {
    return this.alg === -8 ? sign(null, data, this.privateKey) : sign("sha256", data, this.privateKey);
  }

  /** navigator.credentials.create() → RegistrationResponseJSON for creation options from the server. */
  register(options: { challenge: string; user: { id: string } }, origin: string, over: { uv?: boolean; type?: string } = {}) {
    this.userHandle = options.user.id;
    const clientDataJSON = JSON.stringify({ type: over.type ?? "webauthn.create", challenge: options.challenge, origin, crossOrigin: false });
    const idLen = Buffer.alloc(2);
    idLen.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLen, this.credentialId, this.coseKey()]);
    const flags = 0x01 | (over.uv === false ? 0 : 0x04) | 0x40;
    const count = this.mode === "zero" ? 0 : this.signCount;
    const authData = this.authData(flags, count, attested);
    const attestationObject = cbor(
      new Map<Cbor, Cbor>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", authData],
      ]),
    );
    return {
      id: this.credentialIdB64u,
      rawId: this.credentialIdB64u,
      type: "public-key",
      response: { clientDataJSON: b64u(clientDataJSON), attestationObject: b64u(attestationObject), transports: ["internal"] },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }

  /** navigator.credentials.get() → AuthenticationResponseJSON for request options from the server. */
  assert(options: { challenge: string }, origin: string, over: { uv?: boolean; count?: number; rpId?: string } = {}) {
    const clientDataJSON = JSON.stringify({ type: "webauthn.get", challenge: options.challenge, origin, crossOrigin: false });
    const flags = 0x01 | (over.uv === false ? 0 : 0x04);
    const count = over.count ?? this.nextCount();
    const rpId = over.rpId ?? this.rpId;
    const c = Buffer.alloc(4);
    c.writeUInt32BE(count);
    const authData = Buffer.concat([sha256(rpId), Buffer.from([flags]), c]);
    const signature = this.sign(Buffer.concat([authData, sha256(clientDataJSON)]));
    return {
      id: this.credentialIdB64u,
      rawId: this.credentialIdB64u,
      type: "public-key",
      response: { clientDataJSON: b64u(clientDataJSON), authenticatorData: b64u(authData), signature: b64u(signature), userHandle: this.userHandle },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }
}
