import type { z } from "zod";
import { tokenAmountJson } from "./serializers.ts";
import type { RestHandler } from "./types.ts";
import type { WINDOW_QUERY } from "./windowQuery.ts";

/** GET /api/dashboard/previous?w=… — the headline figures of the window before (GraphQL `Dashboard.previous`). */
export const getPreviousWindow: RestHandler<z.output<typeof WINDOW_QUERY>> = async ({ query: { w }, services }) => {
  const p = await services.getPreviousWindow(w);
  return {
    body: {
      window: w,
      previous: p && {
        from: p.from.toISOString(),
        to: p.to.toISOString(),
        txCount: p.txCount,
        amountSumWei: p.amountSumWei.toString(),
        byToken: p.byToken.map(tokenAmountJson),
        agentsActive: p.agentsActive,
        providersDetected: p.providersDetected,
      },
    },
  };
};
