import { describe, expect, it } from "vitest";
import { parseCommandLine } from "../args.ts";
import { UsageError } from "../exitCodes.ts";
import { webhookRecoverSince } from "./webhooks.ts";

const now = new Date("2026-11-25T12:00:00.000Z");

describe("webhooks recover --since", () => {
  it("turns a duration into the instant that long before now", () => {
    expect(webhookRecoverSince("90m", now)).toBe("2026-11-25T10:30:00.000Z");
    expect(webhookRecoverSince("6h", now)).toBe("2026-11-25T06:00:00.000Z");
    expect(webhookRecoverSince("2d", now)).toBe("2026-11-23T12:00:00.000Z");
    expect(webhookRecoverSince("45s", now)).toBe("2026-11-25T11:59:15.000Z");
  });

  it("sends an ISO 8601 time as given (the server checks it and the 7-day bound)", () => {
    expect(webhookRecoverSince("2026-11-25T03:00:00+01:00", now)).toBe("2026-11-25T03:00:00+01:00");
  });

  it.each([[undefined], [""], ["yesterday"], ["6 h"], ["-2h"], ["1.5h"], ["2w"], ["20261125"]])("refuses %j as a usage error", (value) => {
    expect(() => webhookRecoverSince(value, now)).toThrow(UsageError);
  });

  it("parses both commands; --since is required and the id is positional", () => {
    expect(parseCommandLine(["webhooks", "recover", "--since", "2h", "whs_abc"])).toMatchObject({
      command: "webhooks recover",
      args: ["whs_abc"],
      options: { since: "2h" },
    });
    expect(parseCommandLine(["webhooks", "test", "whs_abc", "--json"])).toMatchObject({ command: "webhooks test", args: ["whs_abc"], global: { json: true } });
    expect(() => parseCommandLine(["webhooks", "recover", "whs_abc"])).toThrow(/since/);
    expect(() => parseCommandLine(["webhooks", "test"])).toThrow(/missing <id>/);
  });
});
