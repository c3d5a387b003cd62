// The one graphql-js instance. Node loads graphql's CommonJS entry for our dependencies (yoga, Pothos, armor);
// Vite (vitest) would resolve a bare "graphql" import in our own files to its ESM build instead — a second copy that
// graphql-js rejects ("Cannot use GraphQLObjectType from another module or realm"). Import graphql through here.
export { GraphQLError, GraphQLSchema, Kind, lexicographicSortSchema, print, printSchema, validateSchema } from "graphql/index.js";
export type { ExecutionResult, GraphQLFormattedError } from "graphql/index.js";
// The live feed's graphql-sse endpoint (feed/createGraphqlStreamHandler.ts).
export {
  createSourceEventStream,
  execute,
  getArgumentValues,
  getOperationAST,
  getVariableValues,
  isObjectType,
  parse,
  specifiedRules,
  validate,
} from "graphql/index.js";
export type { DocumentNode, ExecutionArgs, FieldNode, GraphQLResolveInfo, OperationDefinitionNode, SelectionSetNode, ValidationRule } from "graphql/index.js";
