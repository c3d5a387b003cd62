import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { printedSchema, SCHEMA_FILE } from "../scripts/printSchema.ts";
import { validateSchema } from "../src/graphql/graphqlJs.ts";
import { buildSchema } from "../src/schema/index.ts";

describe("GraphQL schema", () => {
  it("the committed schema.graphql is the printed schema (run: npx tsx packages/api/scripts/printSchema.ts)", () => {
    expect(readFileSync(SCHEMA_FILE, "utf8")).toBe(printedSchema());
  });

  it("is valid, has the documented root fields, and the live feed's Subscription root", () => {
    const schema = buildSchema();
    expect(validateSchema(schema)).toEqual([]);
    expect(Object.keys(schema.getQueryType()!.getFields()).sort()).toEqual([
      "activitySeries",
      "agent",
      "agents",
      "dashboard",
      "event",
      "provider",
      "providers",
      "search",
      "service",
      "services",
      "tokens",
      "walletBalances",
      "walletSession",
      "walletSessionPayments",
      "walletSessions",
      "webhook",
      "webhookDeliveries",
      "webhooks",
    ]);
    expect(Object.keys(schema.getSubscriptionType()?.getFields() ?? {})).toEqual(["ledgerEvents"]); // the live feed (schema/Feed.ts)
    expect(Object.keys(schema.getMutationType()!.getFields()).sort()).toEqual([
      "confirmWalletRevoke",
      "createWebhook",
      "deleteWebhook",
      "pauseWebhook",
      "recoverWebhook",
      "redeliverWebhookDelivery",
      "resumeWebhook",
      "revokeAllWalletSessions",
      "revokeWalletSession",
      "rotateWebhookSecret",
      "testWebhook",
      "verifyWebhook",
    ]);
  });
});
