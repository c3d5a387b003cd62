import { describe, expect, it } from "vitest";
import { COMMANDS, GLOBAL_OPTIONS, helpText, parseCommandLine } from "./args.ts";
import { payRequest } from "./commands/session.ts";
import { webhookCreateRequest } from "./commands/webhooks.ts";
import { EXIT, UsageError, exitCodeForApiError } from "./exitCodes.ts";

const usage = (argv: string[]) => {
  try {
    parseCommandLine(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(EXIT.USAGE);
    return (error as UsageError).message;
  }
  throw new Error(`expected a usage error for ${argv.join(" ")}`);
};

describe("parseCommandLine", () => {
  it("parses commands, options in both forms and globals anywhere", () => {
    expect(parseCommandLine(["pay", "--to", "0xabc", "--amount=1.25", "--json", "--memo", "hi there"])).toEqual({
      command: "pay",
      options: { to: "0xabc", amount: "1.25", memo: "hi there" },
      args: [],
      global: { json: true, help: false, version: false },
    });
    expect(parseCommandLine(["--api", "http://x:1", "status"]).global.api).toBe("http://x:1");
    expect(parseCommandLine(["status", "--api=http://x:1"]).global.api).toBe("http://x:1");
    expect(parseCommandLine(["pair", "--no-open", "--label", "bot 1"]).options).toEqual({ "no-open": true, label: "bot 1" });
  });

  it("parses two-word commands and their arguments", () => {
    expect(parseCommandLine(["webhooks", "show", "whs_abc"])).toMatchObject({ command: "webhooks show", args: ["whs_abc"] });
    expect(parseCommandLine(["webhooks", "redeliver", "whs_a", "0f0e…", "--json"])).toMatchObject({
      command: "webhooks redeliver",
      args: ["whs_a", "0f0e…"],
      global: { json: true },
    });
    expect(parseCommandLine(["--json", "webhooks", "create", "--url", "https://h/x", "--agent", "a1"])).toMatchObject({
      command: "webhooks create",
      options: { url: "https://h/x", agent: "a1" },
    });
  });

  it("takes values that look like options after --name= and positionals after --", () => {
    expect(parseCommandLine(["pay", "--to", "0xabc", "--amount", "1", "--memo=--weird"]).options.memo).toBe("--weird");
    expect(parseCommandLine(["webhooks", "show", "--", "--id-with-dashes"]).args).toEqual(["--id-with-dashes"]);
  });

  it("refuses what it does not understand (usage errors, exit 2)", () => {
    expect(usage(["frobnicate"])).toMatch(/unknown command "frobnicate"/);
    expect(usage(["webhooks", "explode"])).toMatch(/unknown command "webhooks explode"/);
    expect(usage(["webhooks"])).toMatch(/needs a subcommand/);
    expect(usage(["pay", "--amount", "1"])).toMatch(/missing --to/);
    expect(usage(["pay", "--to"])).toMatch(/--to needs a value/);
    expect(usage(["pay", "--to", "--amount", "1"])).toMatch(/--to needs a value/);
    expect(usage(["status", "--to", "0xabc"])).toMatch(/unknown option --to for "status"/);
    expect(usage(["status", "--bogus"])).toMatch(/unknown option --bogus/);
    expect(usage(["status", "extra"])).toMatch(/unexpected argument "extra"/);
    expect(usage(["webhooks", "show"])).toMatch(/missing <id>/);
    expect(usage(["webhooks", "show", "a", "b"])).toMatch(/unexpected argument "b"/);
    expect(usage(["pay", "--to", "0x1", "--to", "0x2", "--amount", "1"])).toMatch(/given twice/);
    expect(usage(["status", "--json=maybe"])).toMatch(/takes no value/);
    expect(usage(["-x"])).toMatch(/unknown option -x/);
  });

  it("lets --help and --version through without the required options", () => {
    expect(parseCommandLine(["pay", "--help"])).toMatchObject({ command: "pay", global: { help: true } });
    expect(parseCommandLine(["webhooks", "-h"])).toMatchObject({ command: "webhooks", global: { help: true } });
    expect(parseCommandLine(["-V"]).global.version).toBe(true);
    expect(parseCommandLine([])).toMatchObject({ command: null });
  });

  it("gives every option name one type across all commands (the parser relies on it)", () => {
    const types = new Map<string, string>();
    for (const [name, o] of Object.entries(GLOBAL_OPTIONS)) types.set(name, o.type);
    for (const c of COMMANDS) {
      for (const [name, o] of Object.entries(c.options ?? {})) {
        expect(types.get(name) ?? o.type, `--${name} in ${c.name}`).toBe(o.type);
        types.set(name, o.type);
      }
    }
  });

  it("has help for every command, listing its options", () => {
    for (const c of COMMANDS) {
      const text = helpText(c.name, "0.0.0");
      expect(text).toContain(`Usage: agent-ledger ${c.name}`);
      for (const o of Object.keys(c.options ?? {})) expect(text).toContain(`--${o}`);
    }
    expect(helpText(null, "1.2.3")).toMatch(/Exit codes: 0 ok, 1 error, 2 usage, 3 not paired/);
    expect(helpText("webhooks", "1")).toContain("webhooks rotate-secret");
  });
});

describe("payRequest", () => {
  const to = "0x00000000000000000000000000000000000000AB";
  it("converts the human amount exactly and normalizes addresses", () => {
    expect(payRequest({ to, amount: "1.25", memo: "inv-1" })).toEqual({ to: to.toLowerCase(), amount_wei: "1250000", memo: "inv-1" });
    expect(payRequest({ to, "amount-wei": "7" })).toEqual({ to: to.toLowerCase(), amount_wei: "7" });
    expect(payRequest({ to, amount: "2", token: "0x20C0000000000000000000000000000000000001" }).token).toBe("0x20c0000000000000000000000000000000000001");
  });
  it.each([
    [{ to: "0x12", amount: "1" }, /not an address/],
    [{ to, amount: "1.0000001" }, /more than 6 decimal/],
    [{ to, amount: "0" }, /more than 0/],
    [{ to, amount: "-1" }, /not an amount/],
    [{ to }, /exactly one of --amount/],
    [{ to, amount: "1", "amount-wei": "1" }, /exactly one of --amount/],
    [{ to, amount: "1", memo: "x".repeat(40) }, /at most 32/],
    [{ to, amount: "1", token: "pathUSD" }, /--token "pathUSD" is not an address/],
  ])("refuses %j", (options, message) => expect(() => payRequest(options)).toThrow(message));
});

describe("webhookCreateRequest", () => {
  it("maps flags to the filter object", () => {
    expect(
      webhookCreateRequest({
        url: "https://h.example/hook",
        agent: "demo-agent",
        label: "L",
        recipient: "0x00000000000000000000000000000000000000AA",
        "min-amount": "0.5",
      }),
    ).toEqual({
      callback_url: "https://h.example/hook",
      label: "L",
      filters: { agent_id: "demo-agent", recipient_address: "0x00000000000000000000000000000000000000aa", min_amount_wei: "500000" },
    });
    expect(() => webhookCreateRequest({ url: "u", agent: "a", "min-amount": "1", "min-amount-wei": "1" })).toThrow(UsageError);
    expect(() => webhookCreateRequest({ url: "u", agent: "a", token: "nope" })).toThrow(/not an address/);
  });

  it("reads --min-amount in the decimals of --token from the allowlist; without --token, refused when the allowlist mixes decimals", () => {
    const USD6 = { address: "0x20c0000000000000000000000000000000000000", symbol: "pathUSD", decimals: 6, currency: "USD" };
    const ETH18 = { address: "0x20c00000000000000000000000000000000000e1", symbol: "WETHt", decimals: 18, currency: "ETH" };
    const req = (extra: Record<string, string>) => webhookCreateRequest({ url: "u", agent: "a", ...extra }, [USD6, ETH18]);
    expect(req({ "min-amount": "0.5", token: ETH18.address }).filters).toEqual({
      agent_id: "a",
      token_address: ETH18.address,
      min_amount_wei: "500000000000000000",
    });
    expect(req({ "min-amount": "0.5", token: USD6.address.toUpperCase().replace("0X", "0x") }).filters.min_amount_wei).toBe("500000");
    expect(() => req({ "min-amount": "0.5" })).toThrow(/Give --token for a minimum amount: the allowed tokens have different decimals \(pathUSD 6, WETHt 18\)/);
    expect(() => req({ "min-amount": "0.5", token: "0x00000000000000000000000000000000000000aa" })).toThrow(/not a token of the registry's allowlist/);
    expect(() => req({ "min-amount": "0.0000001", token: USD6.address })).toThrow(UsageError); // more decimals than the token has
    expect(req({ "min-amount-wei": "7" }).filters.min_amount_wei).toBe("7"); // base units need no token
    expect(webhookCreateRequest({ url: "u", agent: "a", "min-amount": "1.5" }, [USD6]).filters.min_amount_wei).toBe("1500000"); // one token: its decimals
  });
});

describe("exitCodeForApiError", () => {
  it.each([
    [401, "unauthorized", EXIT.UNAUTHORIZED],
    [403, "session_expired", EXIT.EXPIRED],
    [403, "session_revoked", EXIT.EXPIRED],
    [403, "session_not_authorized", EXIT.FORBIDDEN],
    [403, "per_call_cap_exceeded", EXIT.FORBIDDEN],
    [403, "spend_cap_exceeded", EXIT.FORBIDDEN],
    [410, "code_expired", EXIT.EXPIRED],
    [400, "invalid_amount", EXIT.USAGE],
    [404, "not_found", EXIT.ERROR],
    [500, "payment_failed", EXIT.ERROR],
    [503, "not_configured", EXIT.ERROR],
  ])("%i %s → %i", (status, code, exit) => expect(exitCodeForApiError(status, code)).toBe(exit));
});
