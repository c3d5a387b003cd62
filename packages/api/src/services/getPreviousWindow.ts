import { loadHeadlineFigures, type HeadlineFigures } from "./loadHeadlineFigures.ts";
import { resolveWindow } from "./resolveWindow.ts";
import type { ServiceContext, TokenAmount } from "./types.ts";

/** The headline figures of one span of rollup buckets. */
export interface WindowFigures extends HeadlineFigures {
  from: Date;
  to: Date;
}

/**
 * The headline figures of the window just before a dashboard window (same length, ending where it starts): what
 * "change vs previous window" compares with. Null for `all` (nothing before it). Rollups only.
 */
export async function getPreviousWindow(ctx: ServiceContext, window: string): Promise<WindowFigures | null> {
  const w = resolveWindow(window, ctx.now());
  if (!w.from) return null;
  const to = w.from;
  const from = new Date(to.getTime() - (w.to.getTime() - w.from.getTime()));
  return { from, to, ...(await loadHeadlineFigures(ctx, { grain: w.grain, from, to })) };
}
