import { describe, expect, it } from "vitest";
import { redactUrl } from "./redactUrl.ts";

describe("redactUrl", () => {
  it("hides the password, keeps the rest", () => {
    expect(redactUrl("postgresql://reader:s3cret@db-replica:5432/agent_ledger?sslmode=require")).toBe(
      "postgresql://reader:***@db-replica:5432/agent_ledger?sslmode=require",
    );
    expect(redactUrl("postgresql://postgres@127.0.0.1:5433/agent_ledger")).toBe("postgresql://postgres@127.0.0.1:5433/agent_ledger");
    expect(redactUrl("not a url s3cret")).toBe("(unparsable URL)");
  });
});
