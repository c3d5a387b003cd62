import { parseSearchQuery } from "../services/parseSearchQuery.ts";
import { SEARCH_PAGE_SIZE } from "../services/search.ts";
import type { AddressLabelRecord, Page } from "../services/types.ts";
import { builder } from "./builder.ts";
import { EntityPageRef } from "./Entity.ts";
import { EventPageRef } from "./refs.ts";
import { pageSize } from "./pageArgs.ts";

const AddressLabelRef = builder.objectRef<AddressLabelRecord>("AddressLabel").implement({
  description: "A labelled (non-watched) address from the registry.",
  fields: (t) => ({
    address: t.exposeString("address"),
    label: t.exposeString("label"),
    category: t.exposeString("category", { nullable: true }),
    source: t.exposeString("source"),
  }),
});

const AddressLabelPageRef = builder.objectRef<Page<AddressLabelRecord>>("AddressLabelPage").implement({
  fields: (t) => ({
    items: t.expose("items", { type: [AddressLabelRef] }),
    nextCursor: t.exposeString("nextCursor", { nullable: true }),
  }),
});

const SearchResultRef = builder.objectRef<{ q: string }>("SearchResult").implement({
  description: "Unified search results; each list is paginated on its own (20 per page by default).",
  fields: (t) => ({
    q: t.exposeString("q", { description: "The query as searched (trimmed)." }),
    events: t.field({
      type: EventPageRef,
      description: "Rows by exact transaction hash or counterparty address (case-insensitive), newest first.",
      args: { first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
      resolve: (s, args, ctx) => ctx.services.searchEvents(s.q, { limit: pageSize(args.first, SEARCH_PAGE_SIZE), after: args.after ?? null }),
    }),
    entities: t.field({
      type: EntityPageRef,
      description: "Services and agents by id or label (case-insensitive substring, prefix ranked first) or wallet (exact or prefix).",
      args: { first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
      resolve: (s, args, ctx) => ctx.services.searchEntities(s.q, { limit: pageSize(args.first, SEARCH_PAGE_SIZE), after: args.after ?? null }),
    }),
    addresses: t.field({
      type: AddressLabelPageRef,
      description: "Labelled addresses by label substring or address (exact or prefix).",
      args: { first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
      resolve: (s, args, ctx) => ctx.services.searchAddresses(s.q, { limit: pageSize(args.first, SEARCH_PAGE_SIZE), after: args.after ?? null }),
    }),
  }),
});

builder.queryField("search", (t) =>
  t.field({
    type: SearchResultRef,
    description: "Search by tx hash, address, id or label. q is trimmed and must be 2–200 characters (else `invalid_query`).",
    args: { q: t.arg.string({ required: true }) },
    resolve: (_root, args) => ({ q: parseSearchQuery(args.q) }),
  }),
);
