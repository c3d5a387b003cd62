import type pg from "pg";
import type { Lookup } from "./checkCallbackHost.ts";
import { WebhookError } from "./WebhookError.ts";

export interface WebhookServiceDeps {
  db: pg.Pool;
  /** Master key sealing signing secrets and verify tokens; null → webhook writes answer 503. */
  masterKey: Buffer | null;
  production: boolean;
  lookup?: Lookup;
  now?: () => Date;
  /** The methodology version whose rows are delivered (recovery reads only these; default the current one). */
  methodologyVersion?: string;
}

/** What every webhook operation gets: the deps with their defaults. */
export interface WebhookContext {
  db: pg.Pool;
  production: boolean;
  lookup?: Lookup;
  now: () => Date;
  methodologyVersion: string | undefined;
  /** The master key; 503 not_configured without one. */
  masterKey(): Buffer;
}

export function createWebhookContext(deps: WebhookServiceDeps): WebhookContext {
  return {
    db: deps.db,
    production: deps.production,
    lookup: deps.lookup,
    now: deps.now ?? (() => new Date()),
    methodologyVersion: deps.methodologyVersion,
    masterKey: () => {
      if (!deps.masterKey) throw new WebhookError("not_configured", "webhooks are not configured on this server (SECRETS_MASTER_KEY is missing)");
      return deps.masterKey;
    },
  };
}
