import { parseLimit } from "../services/parseLimit.ts";

export const PAGE_MAX = 100;

/** `first` of a paginated field: 1…100 (400-style `invalid_limit` otherwise). */
export function pageSize(first: number | null | undefined, fallback: number): number {
  return parseLimit(first ?? null, fallback, PAGE_MAX);
}
