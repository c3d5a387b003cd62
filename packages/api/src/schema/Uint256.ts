import { GraphQLError, Kind } from "../graphql/graphqlJs.ts";
import { builder } from "./builder.ts";

export const MAX_UINT256 = 2n ** 256n - 1n;

function invalid(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: "invalid_uint256" } });
}

/** A uint256 from its decimal-string form (no sign, no leading zeros, no exponent). */
export function parseUint256(value: unknown): bigint {
  if (typeof value !== "string" || !/^(0|[1-9][0-9]{0,77})$/.test(value)) throw invalid("Uint256 must be a decimal string of a non-negative integer");
  const n = BigInt(value);
  if (n > MAX_UINT256) throw invalid("Uint256 must be below 2^256");
  return n;
}

export function serializeUint256(value: unknown): string {
  if (typeof value !== "bigint" || value < 0n || value > MAX_UINT256) throw invalid("not a uint256");
  return value.toString();
}

export const Uint256 = builder.scalarType("Uint256", {
  description: "An unsigned 256-bit integer as a decimal string (e.g. token amounts in the token's smallest unit).",
  serialize: serializeUint256,
  parseValue: parseUint256,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw invalid('Uint256 literals are strings, e.g. "1000000"');
    return parseUint256(ast.value);
  },
});
