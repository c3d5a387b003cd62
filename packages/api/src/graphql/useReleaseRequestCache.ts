import type { Plugin } from "graphql-yoga";
import type { GraphqlContext } from "../schema/builder.ts";
import { releaseRequestCache } from "../schema/requestCache.ts";

/**
 * Empties the request's loader caches (schema/requestCache.ts) as soon as its execution is done — for a streamed
 * result, when the stream ends — so that nothing long-lived keeps the loaded rows reachable after the answer exists.
 */
export function useReleaseRequestCache(): Plugin {
  return {
    onExecute({ args }) {
      const release = () => releaseRequestCache(args.contextValue as unknown as GraphqlContext | undefined);
      return {
        onExecuteDone({ result }) {
          if (result && typeof result === "object" && Symbol.asyncIterator in result) return { onEnd: release };
          release();
          return undefined;
        },
      };
    },
  };
}
