import { ApiError } from "../errors.ts";

/** A page size: an integer 1…max; absent means `fallback`. */
export function parseLimit(value: string | number | null | undefined, fallback: number, max: number): number {
  if (value === null || value === undefined) return fallback;
  const n = typeof value === "number" ? value : /^[0-9]{1,6}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > max) throw new ApiError("invalid_limit", `limit must be an integer from 1 to ${max}`);
  return n;
}
