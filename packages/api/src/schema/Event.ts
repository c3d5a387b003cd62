import { parseEventId } from "../services/parseEventId.ts";
import type { EventRecord } from "../services/types.ts";
import { builder } from "./builder.ts";
import { EntityRef, EventPageRef, EventRef } from "./refs.ts";
import { entityLoader, eventLoader, sessionLoader, txEventsLoader } from "./loaders.ts";
import { SessionRef } from "./Session.ts";

EventRef.implement({
  description: "One ledger row (agent_events): a payment or fee seen from one watched entity. REST serves it snake_case.",
  fields: (t) => ({
    id: t.id({ description: "agent_events.id (decimal).", resolve: (e) => e.id.toString() }),
    ts: t.expose("ts", { type: "DateTime", description: "Block time." }),
    agentId: t.exposeString("agentId", { description: "The watched agent or service whose point of view the row takes." }),
    agentLabel: t.exposeString("agentLabel"),
    agentCategory: t.exposeString("agentCategory"),
    counterpartyAddress: t.exposeString("counterpartyAddress", { description: "Lowercase address of the other side." }),
    counterpartyLabel: t.exposeString("counterpartyLabel"),
    counterpartyCategory: t.exposeString("counterpartyCategory", { nullable: true }),
    kind: t.exposeString("kind", {
      description:
        "payment_sent | payment_received | fee_paid; methodology v0.2 adds settlement_sent | settlement_received | funding_sent | funding_received (rows, not activity: docs/methodology.md)",
    }),
    amountWei: t.expose("amountWei", { type: "Uint256" }),
    tokenAddress: t.exposeString("tokenAddress"),
    txHash: t.exposeString("txHash"),
    logIndex: t.exposeInt("logIndex", { description: "Log index of the Transfer (of a memo pair)." }),
    sourceBlock: t.int({ resolve: (e) => Number(e.sourceBlock) }),
    methodologyVersion: t.exposeString("methodologyVersion"),
    routedToAddress: t.exposeString("routedToAddress", { description: 'Gateway Pattern A provider address, or "".' }),
    routedToLabel: t.exposeString("routedToLabel"),
    routedFingerprint: t.exposeString("routedFingerprint", { nullable: true, description: "Gateway Pattern B memo fingerprint." }),
    explorerUrl: t.exposeString("explorerUrl"),
    // methodology v0.3 (docs/methodology.md); null on older rows
    attribution: t.exposeString("attribution", {
      nullable: true,
      description:
        "Which v0.3 rule attributed the row: recipient_wallet | server_id_host | server_id_realm | session_escrow (the recipient's registered wallet, the MPP memo's serverId of the service host or of its directory realm, a session escrow's event). Null on older rows and on funding and fee rows.",
    }),
    clientFingerprint: t.exposeString("clientFingerprint", {
      nullable: true,
      description: "The MPP memo's clientId (0x + 20 hex); null for an anonymous client or no MPP memo.",
    }),
    clientLabel: t.exposeString("clientLabel", { nullable: true, description: "The registry's label of clientFingerprint; null when it has none." }),
    channelId: t.exposeString("channelId", { nullable: true, description: "A session row's payment channel (0x + 64 hex)." }),
    session: t.field({
      type: SessionRef,
      nullable: true,
      description: "A session row's channel: its escrow's events (opened, top-ups, settlements, close) from the stored raw logs; null for other rows.",
      resolve: (e, _args, ctx) => (e.channelId ? sessionLoader(ctx).load(e.channelId) : null),
    }),
    entity: t.field({
      type: EntityRef,
      nullable: true,
      description: "The watched entity (agentId).",
      resolve: (e, _args, ctx) => entityLoader(ctx).load(e.agentId),
    }),
    relatedEvents: t.field({
      type: [EventRef],
      description: "The other rows of the same transaction, by log index then agent id.",
      resolve: async (e, _args, ctx) => (await txEventsLoader(ctx).load(e.txHash)).filter((x) => x.id !== e.id),
    }),
  }),
});

EventPageRef.implement({
  description: "A page of rows, newest first; pass nextCursor as `after` for the next page (null at the end).",
  fields: (t) => ({
    items: t.expose("items", { type: [EventRef] }),
    nextCursor: t.exposeString("nextCursor", { nullable: true }),
  }),
});

builder.queryField("event", (t) =>
  t.field({
    type: EventRef,
    nullable: true,
    description: "One row of the live methodology version by id (null when unknown). A malformed id is an `invalid_id` error.",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => eventLoader(ctx).load(parseEventId(String(args.id))),
  }),
);
