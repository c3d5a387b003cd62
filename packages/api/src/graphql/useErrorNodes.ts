import type { Plugin } from "graphql-yoga";
import { GraphQLError, Kind, type DocumentNode, type ExecutionResult, type FieldNode, type SelectionSetNode } from "./graphqlJs.ts";
import { getOperationAST } from "./graphqlJs.ts";

/**
 * graphql-jit reports field errors with `locations` and `path` but without the AST `nodes` that graphql-js attaches;
 * yoga's serializer rebuilds errors from their nodes, so their locations would be lost. This plugin (placed after
 * useGraphQlJit, before yoga's masking) gives such errors their field nodes again, found along `path`.
 */
export function useErrorNodes(): Plugin {
  return {
    onExecute({ args }) {
      return {
        onExecuteDone({ result, setResult }) {
          const r = result as ExecutionResult;
          if (!r.errors?.some((e) => !e.nodes && e.path)) return;
          setResult({ ...r, errors: r.errors.map((e) => (e.nodes || !e.path ? e : withNodes(e, args.document, args.operationName ?? undefined))) });
        },
      };
    },
  };
}

function withNodes(error: GraphQLError, document: DocumentNode, operationName: string | undefined): GraphQLError {
  const nodes = fieldNodesAt(document, operationName, error.path!);
  if (nodes.length === 0) return error;
  return new GraphQLError(error.message, { nodes, path: error.path, originalError: error.originalError ?? undefined, extensions: error.extensions });
}

/** The field nodes of the response path (aliases or names; list indices skipped), through fragments. */
function fieldNodesAt(document: DocumentNode, operationName: string | undefined, path: readonly (string | number)[]): FieldNode[] {
  const operation = getOperationAST(document, operationName);
  if (!operation) return [];
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d.selectionSet] as const] : [])));
  const collect = (sets: SelectionSetNode[], key: string): FieldNode[] => {
    const out: FieldNode[] = [];
    const visit = (set: SelectionSetNode, seen: Set<string>) => {
      for (const s of set.selections) {
        if (s.kind === Kind.FIELD) {
          if ((s.alias ?? s.name).value === key) out.push(s);
        } else if (s.kind === Kind.INLINE_FRAGMENT) visit(s.selectionSet, seen);
        else if (!seen.has(s.name.value)) {
          const f = fragments.get(s.name.value);
          if (f) visit(f, new Set(seen).add(s.name.value));
        }
      }
    };
    for (const set of sets) visit(set, new Set());
    return out;
  };
  let sets: SelectionSetNode[] = [operation.selectionSet];
  let nodes: FieldNode[] = [];
  for (const key of path) {
    if (typeof key === "number") continue;
    nodes = collect(sets, key);
    sets = nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
  }
  return nodes;
}
