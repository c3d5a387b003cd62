import { cose, decodeCredentialPublicKey } from "@simplewebauthn/server/helpers";

/** COSE_Key (EC2, ES256, P-256) → uncompressed `0x04‖x‖y`; null for any other key. */
export function coseToUncompressed(coseBytes: Uint8Array): `0x04${string}` | null {
  let key: ReturnType<typeof decodeCredentialPublicKey>;
  try {
    key = decodeCredentialPublicKey(new Uint8Array(coseBytes));
  } catch {
    return null;
  }
  if (!cose.isCOSEPublicKeyEC2(key)) return null;
  if (key.get(cose.COSEKEYS.alg) !== cose.COSEALG.ES256 || key.get(cose.COSEKEYS.crv) !== cose.COSECRV.P256) return null;
  const x = key.get(cose.COSEKEYS.x);
  const y = key.get(cose.COSEKEYS.y);
  if (!x || !y || x.length !== 32 || y.length !== 32) return null;
  return `0x04${Buffer.from(x).toString("hex")}${Buffer.from(y).toString("hex")}`;
}
