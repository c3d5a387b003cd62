import type { EntityHead, EntityListItem, EntityTotals, EventRecord, Page, TrendPoint } from "../services/types.ts";
import { builder } from "./builder.ts";

/**
 * Object types that refer to each other (an Event names its Entity, an Entity lists its Events), declared here and
 * implemented beside their fields (Entity.ts, Event.ts), so the type modules import this leaf and never each other.
 */

/** An entity head, possibly with list or detail data already computed (then no loader runs for it). */
export type EntityShape = EntityHead & Partial<Omit<EntityListItem, keyof EntityHead>> & { totals?: EntityTotals; trend?: TrendPoint[] };

export const EntityRef = builder.objectRef<EntityShape>("Entity");
export const EventRef = builder.objectRef<EventRecord>("Event");
export const EventPageRef = builder.objectRef<Page<EventRecord>>("EventPage");
