/**
 * NUMERIC(78,0) ⇄ bigint. Prisma returns `Prisma.Decimal`, whose `toString()` turns exponential above
 * 1e21 and whose arithmetic has 20 significant digits: always convert through `toFixed()`, do the
 * arithmetic in bigint and hand strings back to the database.
 */
export function u256FromDb(value: { toFixed(): string } | string | bigint): bigint {
  if (typeof value === "bigint") return value;
  return BigInt(typeof value === "string" ? value : value.toFixed());
}

export function u256ToDb(value: bigint): string {
  if (value < 0n || value >= 2n ** 256n) throw new RangeError(`not a uint256: ${value}`);
  return value.toString();
}
