import { describe, expect, it } from "vitest";
import { validateSchema } from "../src/graphql/graphqlJs.ts";
import { builder } from "../src/schema/builder.ts";
import { buildSchema } from "../src/schema/index.ts";

// The live feed is added later with builder.subscriptionField(...): the builder already has the Subscription
// root, and once a field exists the schema includes it. (Own file: this mutates the module-level builder.)

describe("Subscription root", () => {
  it("appears in the schema as soon as a subscription field is registered", () => {
    builder.subscriptionField("tick", (t) =>
      t.int({
        subscribe: async function* () {
          yield 1;
        },
        resolve: (n) => n as number,
      }),
    );
    const schema = buildSchema();
    expect(validateSchema(schema)).toEqual([]);
    expect(Object.keys(schema.getSubscriptionType()?.getFields() ?? {})).toEqual(["ledgerEvents", "tick"]); // ledgerEvents: schema/Feed.ts
  });
});
