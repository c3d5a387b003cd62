import type { DocumentNode, OperationDefinitionNode, SelectionSetNode } from "./graphqlJs.ts";
import { Kind } from "./graphqlJs.ts";

/** Root query fields whose answers are public and may be served from the response cache (see docs/api.md). */
export const CACHEABLE_ROOT_FIELDS: ReadonlySet<string> = new Set(["dashboard"]);

/**
 * Whether an operation may be answered from the response cache: a query (never a mutation or subscription) whose root
 * selections — through fragments, whatever @skip/@include say — are only cacheable public fields (`dashboard`) and
 * `__typename`, and at least one cacheable field.
 */
export function isCacheableOperation(document: DocumentNode, operation: OperationDefinitionNode): boolean {
  if (operation.operation !== "query") return false;
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d.selectionSet] as const] : [])));
  let cacheable = 0;
  const visit = (set: SelectionSetNode, seen: Set<string>): boolean => {
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        if (s.name.value === "__typename") continue;
        if (!CACHEABLE_ROOT_FIELDS.has(s.name.value)) return false;
        cacheable++;
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        if (!visit(s.selectionSet, seen)) return false;
      } else {
        const name = s.name.value;
        const fragment = fragments.get(name);
        if (!fragment || seen.has(name) || !visit(fragment, new Set(seen).add(name))) return false;
      }
    }
    return true;
  };
  return visit(operation.selectionSet, new Set()) && cacheable > 0;
}
