import { z } from "zod";
import { parsedBy } from "../routes/parsedBy.ts";
import { parseWindow } from "../services/resolveWindow.ts";

/** `?w=24h|7d|30d|all` (default 24h; anything else 400 `invalid_window`): the dashboard's and the previous window's query. */
export const WINDOW_QUERY = z.object({ w: parsedBy((w: string | undefined) => parseWindow(w ?? "24h")) });
