import { generateToken, sealSecret } from "@agent-ledger/core";
import { inTransaction } from "@agent-ledger/db";
import { lockOwnedSubscription } from "./lockOwnedSubscription.ts";
import type { WebhookContext } from "./webhookContext.ts";

/** A new signing secret, sealed; shown this once. */
export async function rotateSigningSecret(ctx: WebhookContext, owner: string, id: string) {
  const masterKey = ctx.masterKey();
  const secret = generateToken("whsec_");
  await inTransaction(ctx.db, async (c) => {
    await lockOwnedSubscription(c, owner, id);
    await c.query("UPDATE webhook_subscriptions SET signing_secret_ciphertext = $2, updated_at = now() WHERE id = $1", [id, sealSecret(secret, masterKey, id)]);
  });
  return { signing_secret: secret };
}
