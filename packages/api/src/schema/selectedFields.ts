import type { FieldNode, GraphQLResolveInfo, SelectionSetNode } from "../graphql/graphqlJs.ts";
import { Kind } from "../graphql/graphqlJs.ts";

/**
 * The sub-selections named `name` of the field being resolved (through fragments and inline fragments; @skip and
 * @include are not evaluated, so a caller may look ahead at a field that will not run). For look-ahead only.
 */
export function selectedFields(info: Pick<GraphQLResolveInfo, "fieldNodes" | "fragments">, name: string): FieldNode[] {
  const out: FieldNode[] = [];
  const visit = (set: SelectionSetNode | undefined, seen: Set<string>) => {
    for (const s of set?.selections ?? []) {
      if (s.kind === Kind.FIELD) {
        if (s.name.value === name) out.push(s);
      } else if (s.kind === Kind.INLINE_FRAGMENT) visit(s.selectionSet, seen);
      else if (!seen.has(s.name.value)) visit(info.fragments[s.name.value]?.selectionSet, new Set(seen).add(s.name.value));
    }
  };
  for (const node of info.fieldNodes) visit(node.selectionSet, new Set());
  return out;
}
