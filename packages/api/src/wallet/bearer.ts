import type { IncomingMessage } from "node:http";
import { bearerSession, bearerTokenHash } from "../auth/authenticate.ts";
import type { BearerSession, SessionRow } from "../auth/sessionRows.ts";
import type { WalletContext } from "./context.ts";

export { bearerTokenHash };
export { SESSION_COLUMNS, SESSION_ROW_COLUMNS, type BearerSession, type SessionRow } from "../auth/sessionRows.ts";

/** Cap − spent − reserved, never negative, as an exact decimal string. */
export function remainingWei(s: Pick<SessionRow, "spend_cap_wei" | "spend_used_wei" | "spend_reserved_wei">): string {
  const remaining = BigInt(s.spend_cap_wei) - BigInt(s.spend_used_wei) - BigInt(s.spend_reserved_wei);
  return (remaining < 0n ? 0n : remaining).toString();
}

/**
 * The wallet session of `Authorization: Bearer <token>`, whatever its state; 401 otherwise. The request's one
 * authentication step (auth/authenticate.ts) loaded it already on a `bearer` route: this hands out that load.
 */
export function loadBearerSession(ctx: WalletContext, req: IncomingMessage): Promise<BearerSession> {
  return bearerSession(ctx.db, req.headers);
}
