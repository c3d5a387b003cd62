import type { ExecutionArgs } from "./graphqlJs.ts";
import { Kind, getOperationAST, getVariableValues } from "./graphqlJs.ts";

/**
 * Whether an execution runs compiled (graphql-jit): queries whose variables are valid, in documents of one operation.
 * Mutations stay on graphql-js, and so do requests with invalid variables, so that their errors (messages, locations)
 * are graphql-js's own. So do documents of several operations: the jit plugin keeps one compiled query per document,
 * whichever operation was compiled first, so another operation of the same document would run the first one's code.
 */
export function runsCompiled(args: ExecutionArgs): boolean {
  let operations = 0;
  for (const d of args.document.definitions) if (d.kind === Kind.OPERATION_DEFINITION && ++operations > 1) return false;
  const operation = getOperationAST(args.document, args.operationName ?? undefined);
  if (operation?.operation !== "query") return false;
  if (!operation.variableDefinitions?.length) return true;
  return !("errors" in getVariableValues(args.schema, operation.variableDefinitions, args.variableValues ?? {}, { maxErrors: 1 }));
}
