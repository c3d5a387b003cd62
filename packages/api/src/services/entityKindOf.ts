import type { EntityKind } from "./types.ts";

/** Curated services are the entities whose id ends `-mpp`; every other watched entity is an agent. */
export function entityKindOf(id: string): EntityKind {
  return id.endsWith("-mpp") ? "service" : "agent";
}
