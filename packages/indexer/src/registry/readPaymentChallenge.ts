import { isAddress, mppFingerprint } from "@agent-ledger/core";
import { Challenge } from "mppx";
import { DiscoveryError, type Discovery } from "./applyDiscovery.ts";

export interface ReadChallengeOptions {
  fetch?: typeof fetch;
  timeoutMs?: number;
  now?: () => Date;
}

/** An error's first line, printable ASCII only (a garbled header's bytes can reach mppx's message), at most 200 characters. */
const firstLine = (error: unknown) =>
  String((error as Error)?.message ?? error)
    .split("\n")[0]!
    .replace(/[^\x20-\x7e]/g, "?")
    .trim()
    .slice(0, 200);

/**
 * GETs a service URL and reads its MPP 402 challenge (`WWW-Authenticate: Payment …`, parsed by mppx's own
 * `Challenge.fromResponseList`; the first `tempo` challenge counts): the recipient, currency, chain id, realm (→ the
 * serverId keccak256(realm)[0..9]) and, for a session, the escrow contract. No payment is made and no chain is asked.
 * Throws DiscoveryError with a one-line reason: not an http(s) URL, no answer, an answer other than 402, a header
 * mppx cannot parse, no tempo challenge, or an address field that is not an address.
 */
export async function readPaymentChallenge(url: string, options: ReadChallengeOptions = {}): Promise<Discovery> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DiscoveryError(`"${url}" is not a URL (expected http:// or https://…)`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new DiscoveryError(`"${url}" is not an http(s) URL`);
  const timeoutMs = options.timeoutMs ?? 15_000;
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(parsed.href, { method: "GET", redirect: "follow", signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = (error as Error).name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : (cause?.code ?? cause?.message ?? firstLine(error));
    throw new DiscoveryError(`GET ${parsed.href} failed: ${reason}`);
  }
  await response.body?.cancel().catch(() => undefined);
  if (response.status !== 402) {
    throw new DiscoveryError(`GET ${parsed.href} answered HTTP ${response.status}, not 402 Payment Required: there is no payment challenge to read`);
  }
  let challenges: Challenge.Challenge[];
  try {
    challenges = Challenge.fromResponseList(response);
  } catch (error) {
    throw new DiscoveryError(`${parsed.href} answered 402, but its WWW-Authenticate header is not a valid MPP Payment challenge: ${firstLine(error)}`);
  }
  const challenge = challenges.find((c) => c.method === "tempo");
  if (!challenge) throw new DiscoveryError(`${parsed.href} offers no tempo payment challenge (methods: ${challenges.map((c) => c.method).join(", ")})`);
  const request = challenge.request as Record<string, unknown>;
  const details = (typeof request.methodDetails === "object" && request.methodDetails !== null ? request.methodDetails : {}) as Record<string, unknown>;
  const address = (value: unknown, field: string): string | null => {
    if (value === undefined || value === null) return null;
    if (!isAddress(value)) throw new DiscoveryError(`${parsed.href}: the challenge's ${field} "${String(value).slice(0, 80)}" is not an address`);
    return value.toLowerCase();
  };
  const chainId = details.chainId;
  return {
    url: parsed.href,
    at: (options.now?.() ?? new Date()).toISOString(),
    method: challenge.method,
    intent: challenge.intent,
    realm: challenge.realm,
    server_id: mppFingerprint(challenge.realm),
    recipient: address(request.recipient, "recipient"),
    currency: address(request.currency, "currency"),
    chain_id: typeof chainId === "number" && Number.isSafeInteger(chainId) ? chainId : null,
    escrow_contract: address(details.escrowContract, "escrowContract"),
  };
}
