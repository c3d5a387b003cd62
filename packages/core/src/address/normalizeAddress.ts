import { InvalidAddressError } from "../errors.ts";

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** True for `0x` + 40 hex characters, any case (no checksum check: clients normalize on input). */
export function isAddress(value: unknown): value is string {
  return typeof value === "string" && ADDRESS.test(value);
}

/** Lowercases a valid address; throws InvalidAddressError otherwise. */
export function normalizeAddress(value: unknown): `0x${string}` {
  if (!isAddress(value)) throw new InvalidAddressError(value);
  return value.toLowerCase() as `0x${string}`;
}
