import { UsageError } from "./exitCodes.ts";

// A small, strict command-line parser: `agent-ledger [global options] <command> [subcommand] [options] [args]`.
// Options may come anywhere after the program name, as `--name value` or `--name=value`; `--` ends options.
// Unknown options, missing values, missing required options and extra arguments are usage errors (exit 2).

export interface OptionSpec {
  type: "string" | "boolean";
  description: string;
  /** Placeholder in help ("ADDRESS"). */
  value?: string;
  required?: boolean;
  /** One-letter alias (`-h`). */
  short?: string;
}

export interface CommandSpec {
  /** "pay", "webhooks create". */
  name: string;
  summary: string;
  /** Positional arguments, all required, in order. */
  args?: { name: string; description: string }[];
  options?: Record<string, OptionSpec>;
  /** Extra help text (examples). */
  details?: string;
}

export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  api: { type: "string", value: "URL", description: "API base URL (default: $AGENT_LEDGER_API, else the API you paired with, else http://127.0.0.1:3000)" },
  json: { type: "boolean", description: "machine-readable output: JSON on stdout (errors as JSON on stderr)" },
  help: { type: "boolean", short: "h", description: "show help" },
  version: { type: "boolean", short: "V", description: "print the version" },
};

const ADDRESS = "ADDRESS";
const ID = "ID";

export const COMMANDS: CommandSpec[] = [
  {
    name: "pair",
    summary: "pair this machine with a passkey wallet (device code + browser approval)",
    options: {
      label: { type: "string", value: "NAME", description: "how this agent is shown on the approval page (default: user@host)" },
      "no-open": { type: "boolean", description: "do not try to open the browser" },
    },
    details: "Prints a code and a URL, opens the URL when it can, and waits for the approval. The token is stored in the config directory (mode 0600).",
  },
  {
    name: "pay",
    summary: "send a payment from the paired account",
    options: {
      to: { type: "string", value: ADDRESS, required: true, description: "recipient address (0x + 40 hex)" },
      amount: { type: "string", value: "AMOUNT", description: "amount in tokens, e.g. 1.25 (at most 6 decimals)" },
      "amount-wei": { type: "string", value: "UNITS", description: "amount in base units instead (1.25 = 1250000)" },
      memo: { type: "string", value: "TEXT", description: "memo: text up to 32 UTF-8 bytes, or 0x + up to 64 hex digits" },
      token: { type: "string", value: ADDRESS, description: "TIP-20 token (default: the session's token)" },
      "idempotency-key": {
        type: "string",
        value: "KEY",
        description: "re-ask about an earlier payment (printed when one was left pending), or name this one (default: a fresh key)",
      },
      "pending-timeout": {
        type: "string",
        value: "SECONDS",
        description: "how long to keep asking about a pending payment before exiting 7 (default: $AGENT_LEDGER_PAY_PENDING_TIMEOUT, else 120)",
      },
    },
    details:
      "Each run sends a fresh Idempotency-Key and re-uses it on its own retries (network errors, 5xx, a pending outcome),\n" +
      "so a retry never pays twice. A payment still pending after 2 minutes (--pending-timeout) exits 7 and prints its key.\n" +
      "Examples:\n  agent-ledger pay --to 0xabc… --amount 1.25 --memo invoice-42\n  agent-ledger pay --to 0xabc… --amount-wei 1250000 --json",
  },
  { name: "status", summary: "show the paired session: caps, spending, expiry" },
  {
    name: "mcp",
    summary: "run the MCP server on stdio for an agent runtime (ledger, wallet and webhook tools)",
    details:
      "Speaks the Model Context Protocol on stdin/stdout until stdin closes. The tools use this machine's paired session\n" +
      "(run `agent-ledger pair` first for pay/wallet/webhooks; the ledger tools work without one). Client configuration: docs/mcp.md.\n" +
      "Example (Claude Code):  claude mcp add agent-ledger -- npx agent-ledger mcp",
  },
  { name: "revoke", summary: "revoke the paired session on the server and forget its token" },
  {
    name: "feed",
    summary: "tail the live ledger feed (server-sent events); resumes after reconnects",
    options: {
      agent: { type: "string", value: ID, description: "only rows of this agent or service id" },
      "min-amount": { type: "string", value: "AMOUNT", description: "only rows moving at least this many tokens" },
      since: { type: "string", value: "EVENT_ID", description: "replay rows after this event id first" },
      limit: { type: "string", value: "N", description: "exit after N rows" },
    },
  },
  {
    name: "webhooks create",
    summary: "create a webhook subscription (prints the signing secret once)",
    options: {
      url: { type: "string", value: "URL", required: true, description: "callback URL (https; http://localhost only outside production)" },
      agent: { type: "string", value: ID, required: true, description: "filters.agent_id: an active agent or service id" },
      label: { type: "string", value: "TEXT", description: "free-text label" },
      recipient: { type: "string", value: ADDRESS, description: "filters.recipient_address" },
      "routed-to": { type: "string", value: ADDRESS, description: "filters.routed_to_address" },
      "min-amount": { type: "string", value: "AMOUNT", description: "filters.min_amount_wei, given in tokens (1.25)" },
      "min-amount-wei": { type: "string", value: "UNITS", description: "filters.min_amount_wei in base units" },
      token: { type: "string", value: ADDRESS, description: "filters.token_address" },
    },
  },
  { name: "webhooks list", summary: "list your webhook subscriptions" },
  { name: "webhooks show", summary: "show one subscription with its delivery counts", args: [{ name: "id", description: "subscription id (whs_…)" }] },
  {
    name: "webhooks verify",
    summary: "activate a subscription with the verify token its callback received",
    args: [{ name: "id", description: "subscription id" }],
    options: { token: { type: "string", value: "TOKEN", required: true, description: "the verify_token" } },
  },
  { name: "webhooks pause", summary: "pause deliveries", args: [{ name: "id", description: "subscription id" }] },
  { name: "webhooks resume", summary: "re-arm a paused or disabled subscription", args: [{ name: "id", description: "subscription id" }] },
  {
    name: "webhooks rotate-secret",
    summary: "replace the signing secret (prints the new one once; no overlap)",
    args: [{ name: "id", description: "subscription id" }],
  },
  { name: "webhooks delete", summary: "delete a subscription", args: [{ name: "id", description: "subscription id" }] },
  {
    name: "webhooks deliveries",
    summary: "show the delivery log, newest first",
    args: [{ name: "id", description: "subscription id" }],
    options: {
      limit: { type: "string", value: "N", description: "page size 1–200 (default 50)" },
      cursor: { type: "string", value: "CURSOR", description: "next_cursor of a previous page" },
    },
  },
  {
    name: "webhooks redeliver",
    summary: "force a new attempt of one delivery (not of one that already got a 2xx)",
    args: [
      { name: "id", description: "subscription id" },
      { name: "delivery-id", description: "delivery id (UUID)" },
    ],
  },
  {
    name: "webhooks recover",
    summary: "deliver the matching ledger rows recorded since a time that have no delivery yet (after a pause or a disable)",
    args: [{ name: "id", description: "subscription id (must be active: resume it first)" }],
    options: {
      since: {
        type: "string",
        value: "TIME",
        required: true,
        description: "ISO 8601 with an offset (2026-11-25T03:00:00Z) or a duration back from now (90m, 6h, 2d); at most 7 days",
      },
    },
    details: "Example: agent-ledger webhooks recover --since 2h whs_…   (twice is harmless: nothing is delivered twice)",
  },
  {
    name: "webhooks test",
    summary: "send a signed svc.webhook.test event to the callback (prints the delivery id)",
    args: [{ name: "id", description: "subscription id (active)" }],
  },
];

export interface ParsedCommandLine {
  /** The command's name ("pay", "webhooks create"); null when only global options were given. */
  command: string | null;
  options: Record<string, string | boolean | undefined>;
  args: string[];
  global: { api?: string; json: boolean; help: boolean; version: boolean };
}

const GROUPS = [...new Set(COMMANDS.filter((c) => c.name.includes(" ")).map((c) => c.name.split(" ")[0]!))];

export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}

/** Parses argv (without node and the script). Throws UsageError. `--help` anywhere skips the required checks. */
export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
  const words: string[] = [];
  const raw: { name: string; value: string | undefined; token: string }[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === "--") {
      words.push(...argv.slice(i + 1));
      break;
    }
    if (token.startsWith("--") && token.length > 2) {
      const eq = token.indexOf("=");
      raw.push(eq === -1 ? { name: token.slice(2), value: undefined, token } : { name: token.slice(2, eq), value: token.slice(eq + 1), token });
    } else if (/^-[A-Za-z]$/.test(token)) {
      const long = Object.entries(GLOBAL_OPTIONS).find(([, o]) => o.short === token[1])?.[0];
      if (!long) throw new UsageError(`unknown option ${token}`);
      raw.push({ name: long, value: undefined, token });
    } else {
      raw.push({ name: "", value: token, token }); // a word: a command, an argument, or the value of the option before it
    }
  }

  // Which words are option values? Option names mean the same in every command (a string option is a string option
  // everywhere), so this does not need to know the command yet: `--name` of a string option takes the next word.
  const isType = (name: string, type: OptionSpec["type"]) => GLOBAL_OPTIONS[name]?.type === type || COMMANDS.some((c) => c.options?.[name]?.type === type);
  const positional: string[] = [];
  const entries: { name: string; value: string | undefined; token: string }[] = [];
  for (let k = 0; k < raw.length; k++) {
    const r = raw[k]!;
    if (r.name === "") {
      positional.push(r.value!);
      continue;
    }
    entries.push(r);
    if (isType(r.name, "string") && r.value === undefined) {
      const next = raw[k + 1];
      if (!next || next.name !== "") throw new UsageError(`option --${r.name} needs a value`);
      r.value = next.value;
      k++;
    }
  }
  positional.push(...words);

  let command: CommandSpec | undefined;
  let consumed = 0;
  const first = positional[0];
  if (first !== undefined) {
    if (GROUPS.includes(first)) {
      const sub = positional[1];
      if (sub === undefined) {
        command = undefined;
        consumed = 1;
      } else {
        command = findCommand(`${first} ${sub}`);
        if (!command) throw new UsageError(`unknown command "${first} ${sub}"`, `run \`agent-ledger ${first} --help\` for the list`);
        consumed = 2;
      }
    } else {
      command = findCommand(first);
      if (!command) throw new UsageError(`unknown command "${first}"`, "run `agent-ledger --help` for the list of commands");
      consumed = 1;
    }
  }

  const global: ParsedCommandLine["global"] = { json: false, help: false, version: false };
  const options: Record<string, string | boolean | undefined> = {};
  for (const e of entries) {
    const spec = GLOBAL_OPTIONS[e.name] ?? command?.options?.[e.name];
    if (!spec) {
      const where = command ? ` for "${command.name}"` : "";
      throw new UsageError(`unknown option --${e.name}${where}`, command ? `run \`agent-ledger ${command.name} --help\`` : "run `agent-ledger --help`");
    }
    let value: string | boolean;
    if (spec.type === "boolean") {
      if (e.value !== undefined && !["true", "false", "1", "0"].includes(e.value)) throw new UsageError(`option --${e.name} takes no value`);
      value = e.value === undefined || e.value === "true" || e.value === "1";
    } else {
      if (e.value === undefined || e.value === "") throw new UsageError(`option --${e.name} needs a value`);
      value = e.value;
    }
    if (e.name in GLOBAL_OPTIONS) (global as Record<string, unknown>)[e.name] = value;
    else {
      if (options[e.name] !== undefined) throw new UsageError(`option --${e.name} given twice`);
      options[e.name] = value;
    }
  }
  const groupOnly = first !== undefined && GROUPS.includes(first) && !command;
  const args = positional.slice(consumed);
  if (global.help || global.version) return { command: groupOnly ? first! : (command?.name ?? null), options, args, global };
  if (groupOnly) throw new UsageError(`"${first}" needs a subcommand`, `run \`agent-ledger ${first} --help\``);
  if (command) {
    const want = command.args ?? [];
    if (args.length < want.length)
      throw new UsageError(
        `missing ${want
          .slice(args.length)
          .map((a) => `<${a.name}>`)
          .join(" ")} for "${command.name}"`,
        `usage: ${usageLine(command)}`,
      );
    if (args.length > want.length) throw new UsageError(`unexpected argument "${args[want.length]}" for "${command.name}"`, `usage: ${usageLine(command)}`);
    for (const [name, spec] of Object.entries(command.options ?? {})) {
      if (spec.required && options[name] === undefined) throw new UsageError(`missing --${name} for "${command.name}"`, `usage: ${usageLine(command)}`);
    }
  } else if (args.length > 0) {
    throw new UsageError(`unexpected argument "${args[0]}"`);
  }
  return { command: command?.name ?? null, options, args, global };
}

export function usageLine(c: CommandSpec): string {
  const opts = Object.entries(c.options ?? {}).map(([n, o]) => {
    const s = o.type === "boolean" ? `--${n}` : `--${n} ${o.value ?? "VALUE"}`;
    return o.required ? s : `[${s}]`;
  });
  return ["agent-ledger", c.name, ...(c.args ?? []).map((a) => `<${a.name}>`), ...opts].join(" ");
}

function optionLines(options: Record<string, OptionSpec>): string[] {
  const rows = Object.entries(options).map(
    ([n, o]) =>
      [
        `${o.short ? `-${o.short}, ` : "    "}--${n}${o.type === "string" ? ` ${o.value ?? "VALUE"}` : ""}`,
        `${o.description}${o.required ? " (required)" : ""}`,
      ] as const,
  );
  const width = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([a, b]) => `  ${a.padEnd(width)}  ${b}`);
}

/** Help text: the whole program, a group ("webhooks"), or one command. */
export function helpText(name: string | null, version: string): string {
  if (name && GROUPS.includes(name)) {
    const subs = COMMANDS.filter((c) => c.name.startsWith(`${name} `));
    const width = Math.max(...subs.map((c) => c.name.length));
    return [
      `Usage: agent-ledger ${name} <subcommand> [options]`,
      "",
      "Subcommands:",
      ...subs.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
      "",
      `Run \`agent-ledger ${name} <subcommand> --help\` for its options.`,
      "",
    ].join("\n");
  }
  const command = name ? findCommand(name) : undefined;
  if (command) {
    const lines = [`Usage: ${usageLine(command)}`, "", command.summary, ""];
    if (command.args?.length) lines.push("Arguments:", ...command.args.map((a) => `  <${a.name}>  ${a.description}`), "");
    if (command.options && Object.keys(command.options).length) lines.push("Options:", ...optionLines(command.options), "");
    lines.push("Global options:", ...optionLines(GLOBAL_OPTIONS), "");
    if (command.details) lines.push(command.details, "");
    return lines.join("\n");
  }
  const tops = COMMANDS.filter((c) => !c.name.includes(" "));
  const width = Math.max(...tops.map((c) => c.name.length), ...GROUPS.map((g) => g.length));
  return [
    `agent-ledger ${version} — pay from a passkey wallet, manage webhooks, tail the Agent Ledger feed`,
    "",
    "Usage: agent-ledger <command> [options]",
    "",
    "Commands:",
    ...tops.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    ...GROUPS.map(
      (g) =>
        `  ${g.padEnd(width)}  ${COMMANDS.filter((c) => c.name.startsWith(`${g} `))
          .map((c) => c.name.split(" ")[1])
          .join(" | ")}`,
    ),
    "",
    "Global options:",
    ...optionLines(GLOBAL_OPTIONS),
    "",
    "Exit codes: 0 ok, 1 error, 2 usage, 3 not paired/unauthorized, 4 forbidden (caps), 5 expired/revoked, 6 API unreachable, 130 interrupted.",
    "Config: $AGENT_LEDGER_CONFIG_DIR, else $XDG_CONFIG_HOME/agent-ledger, else ~/.config/agent-ledger (credentials.json, mode 0600).",
    "",
  ].join("\n");
}
