import { GraphQLError } from "../graphql/graphqlJs.ts";
import type { EventRecord } from "../services/types.ts";
import { FeedError } from "../feed/parseFeedParams.ts";
import { builder } from "./builder.ts";
import { EventRef } from "./refs.ts";

builder.subscriptionField("ledgerEvents", (t) =>
  t.field({
    type: EventRef,
    description:
      "New ledger rows of the live methodology version, in id order (served over graphql-sse at /graphql/stream). " +
      "Without afterId the stream starts live; with afterId it first replays every row with a greater id, then goes live " +
      "without a gap or a duplicate. Re-subscribe with afterId = the last id received to resume.",
    args: {
      agentId: t.arg.string({ description: "Only rows whose agentId is this watched agent or service (unknown id: `not_found`)." }),
      minAmountWei: t.arg({ type: "Uint256", description: "Only rows with amountWei at least this." }),
      afterId: t.arg.id({ description: "Resume after this event id (0 = from the first row); malformed: `invalid_id`." }),
    },
    subscribe: async (_root, args, ctx) => {
      if (!ctx.feed) {
        throw new GraphQLError("Subscriptions are served over graphql-sse at /graphql/stream.", { extensions: { code: "use_graphql_stream" } });
      }
      try {
        return await ctx.feed.subscribe({
          agentId: args.agentId ?? null,
          minAmountWei: args.minAmountWei ?? null,
          afterId: args.afterId === null || args.afterId === undefined ? null : String(args.afterId),
        });
      } catch (error) {
        if (error instanceof FeedError) throw new GraphQLError(error.message, { extensions: { code: error.code } });
        throw error;
      }
    },
    resolve: (row: EventRecord) => row,
  }),
);
