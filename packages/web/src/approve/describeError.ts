import { ApiCallError } from "@agent-ledger/client";
import { PasskeyHostError } from "../shared/passkeyHost.ts";

export type ErrorKind = "cancelled" | "expired" | "not_found" | "signin" | "server" | "network" | "chain" | "unsupported" | "unknown";

export interface DescribedError {
  kind: ErrorKind;
  /** One short sentence for a heading. */
  title: string;
  /** What happened and what to do. */
  detail: string;
}

/** The error and its `cause` chain (viem, ox and SimpleWebAuthn wrap the DOMException they got). */
function chain(error: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = error, i = 0; e && i < 10; i++) {
    out.push(e);
    e = (e as { cause?: unknown }).cause;
  }
  return out;
}

const nameOf = (e: unknown) => (typeof e === "object" && e !== null ? String((e as { name?: unknown }).name ?? "") : "");
const messageOf = (e: unknown) => (e instanceof Error ? e.message : typeof e === "string" ? e : "");

/** Maps anything thrown during the approval flow to a message a person can act on. */
export function describeError(error: unknown): DescribedError {
  const all = chain(error);
  const api = all.find((e): e is ApiCallError => e instanceof ApiCallError && e.status !== 0); // status 0: no answer (below)
  if (api) {
    if (api.code === "code_expired" || api.status === 410) {
      return {
        kind: "expired",
        title: "This pairing code has expired",
        detail: "Codes are valid for 5 minutes and nothing was approved. In your terminal, run “agent-ledger pair” again and open the new link.",
      };
    }
    if (api.code === "code_not_found" || api.code === "invalid_code") {
      return { kind: "not_found", title: "This pairing code is not valid", detail: `${api.message} Check the code shown in your terminal and enter it again.` };
    }
    if (api.code === "rate_limited") {
      return { kind: "server", title: "Too many attempts", detail: `${api.message} Nothing was approved; wait, then try again.` };
    }
    if (api.code === "rate_limit_unavailable") {
      return { kind: "server", title: "The server cannot check this code right now", detail: "Nothing was approved. Try again in a few seconds." };
    }
    if (api.code === "already_approved") return { kind: "server", title: "Already approved", detail: `${api.message} Go back to your terminal.` };
    if (api.status === 401 && api.code === "unauthorized") return { kind: "signin", title: "Please sign in again", detail: `${api.message}` };
    if (api.status === 401) return { kind: "signin", title: "Your passkey was not accepted", detail: `${api.message} (${api.code})` };
    return { kind: "server", title: "The server refused the request", detail: `${api.message} (${api.code})` };
  }
  const host = all.find((e): e is PasskeyHostError => e instanceof PasskeyHostError);
  if (host) return { kind: "unsupported", title: `Open this page at ${host.rpId}`, detail: host.message };
  const names = all.map(nameOf);
  if (names.includes("NotAllowedError") || names.includes("AbortError")) {
    return {
      kind: "cancelled",
      title: "The passkey prompt was cancelled",
      detail: "Nothing was approved. The prompt was closed, timed out, or no matching passkey was found on this device. Try again when you are ready.",
    };
  }
  if (names.includes("InvalidStateError")) {
    return {
      kind: "cancelled",
      title: "This passkey already exists",
      detail: "This device already has a passkey for this site. Use “Sign in with a passkey” instead.",
    };
  }
  if (names.includes("NotSupportedError")) {
    return {
      kind: "unsupported",
      title: "Passkeys are not available",
      detail: "This browser or device cannot create the kind of passkey we need (P-256). Try another browser or device.",
    };
  }
  if (names.includes("SecurityError")) {
    return {
      kind: "unsupported",
      title: "Passkeys are blocked on this address",
      detail: "Open the approval link exactly as printed by the CLI (the passkey is bound to that site).",
    };
  }
  if (names.includes("TimeoutError") || /took too long|timed out|timeout/i.test(messageOf(error))) {
    return { kind: "chain", title: "The chain did not confirm in time", detail: `${messageOf(error)} Nothing is lost: try again.` };
  }
  if (all.some((e) => e instanceof ApiCallError && e.status === 0) || (error instanceof TypeError && /fetch|network/i.test(error.message))) {
    return { kind: "network", title: "Cannot reach the server", detail: "Check your connection and try again." };
  }
  const short = (error as { shortMessage?: unknown })?.shortMessage;
  if (typeof short === "string" && short) return { kind: "chain", title: "The authorization transaction failed", detail: short };
  return { kind: "unknown", title: "Something went wrong", detail: messageOf(error) || String(error) };
}
