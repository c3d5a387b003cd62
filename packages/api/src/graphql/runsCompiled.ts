import type { ExecutionArgs } from "./graphqlJs.ts";
import { getOperationAST, getVariableValues } from "./graphqlJs.ts";

/**
 * Whether an execution runs compiled (graphql-jit): queries whose variables are valid. Mutations stay on graphql-js,
 * and so do requests with invalid variables, so that their errors (messages, locations) are graphql-js's own.
 */
export function runsCompiled(args: ExecutionArgs): boolean {
  const operation = getOperationAST(args.document, args.operationName ?? undefined);
  if (operation?.operation !== "query") return false;
  if (!operation.variableDefinitions?.length) return true;
  return !("errors" in getVariableValues(args.schema, operation.variableDefinitions, args.variableValues ?? {}, { maxErrors: 1 }));
}
