import { ApiError } from "../errors.ts";

export const WINDOWS = ["24h", "7d", "30d", "all"] as const;
export type WindowName = (typeof WINDOWS)[number];

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export interface WindowBounds {
  name: WindowName;
  /** Which rollup grain the window reads: `*_hourly` or `*_daily`. */
  grain: "hourly" | "daily";
  /** First bucket included; null = from the beginning (`all`). */
  from: Date | null;
  /** First bucket excluded: the bucket after the one containing `now`. */
  to: Date;
  /** Null for `all` (depends on the data: hours from the first daily bucket to now). */
  windowHours: number | null;
}

export function floorToHour(t: Date): Date {
  return new Date(Math.floor(t.getTime() / HOUR_MS) * HOUR_MS);
}

export function floorToDay(t: Date): Date {
  return new Date(Math.floor(t.getTime() / DAY_MS) * DAY_MS);
}

export function isWindowName(value: string): value is WindowName {
  return (WINDOWS as readonly string[]).includes(value);
}

/** A window name, or the `invalid_window` error. */
export function parseWindow(name: string): WindowName {
  if (!isWindowName(name)) throw new ApiError("invalid_window", `window must be one of ${WINDOWS.join(", ")}`);
  return name;
}

/**
 * Rollup buckets of a dashboard window at `now` (UTC):
 * `24h` = the hour containing now and the 23 before it; `7d` = the last 168 hourly buckets;
 * `30d` = today and the 29 days before it (daily buckets); `all` = every daily bucket up to today.
 */
export function resolveWindow(windowName: string, now: Date): WindowBounds {
  const name = parseWindow(windowName);
  const hour = floorToHour(now).getTime();
  const day = floorToDay(now).getTime();
  switch (name) {
    case "24h":
      return { name, grain: "hourly", from: new Date(hour - 23 * HOUR_MS), to: new Date(hour + HOUR_MS), windowHours: 24 };
    case "7d":
      return { name, grain: "hourly", from: new Date(hour - 167 * HOUR_MS), to: new Date(hour + HOUR_MS), windowHours: 168 };
    case "30d":
      return { name, grain: "daily", from: new Date(day - 29 * DAY_MS), to: new Date(day + DAY_MS), windowHours: 720 };
    case "all":
      return { name, grain: "daily", from: null, to: new Date(day + DAY_MS), windowHours: null };
  }
}
