import { findEntity } from "./getEntityDetail.ts";
import { getProvider } from "./getProvider.ts";
import { loadEventsByIds } from "./loadEventsByIds.ts";
import { loadEventsByTxHash } from "./loadEventsByTxHash.ts";
import type { ServiceContext } from "./types.ts";

/**
 * A page that names one thing, in the read layer's terms: the kind of thing (`service`, `agent`, `event`, `tx`,
 * `provider`; any other kind is not checked) and its id as written in the URL. The explorer's route match has this
 * shape, so the web handler passes it as is; the read layer does not depend on the explorer's route types.
 */
export interface NamedPage {
  name: string;
  param: string;
}

/**
 * Whether the thing an explorer page names exists, so the page answers HTTP 404 for an unknown id (the web handler
 * asks; the browser app then shows its not-found page). One index probe per page load.
 */
export async function pageExists(ctx: ServiceContext, route: NamedPage): Promise<boolean> {
  switch (route.name) {
    case "service":
      return (await findEntity(ctx, "service", route.param)) !== null;
    case "agent":
      return (await findEntity(ctx, "agent", route.param)) !== null;
    case "event":
      if (!/^[1-9][0-9]{0,18}$/.test(route.param) || BigInt(route.param) > 9223372036854775807n) return false;
      return (await loadEventsByIds(ctx, [BigInt(route.param)]))[0] != null;
    case "tx":
      if (!/^0x[0-9a-fA-F]{64}$/.test(route.param)) return false;
      return ((await loadEventsByTxHash(ctx, [route.param.toLowerCase()]))[0]?.length ?? 0) > 0;
    case "provider":
      return (await getProvider(ctx, route.param)) !== null;
    default:
      return true;
  }
}
