// The approval page (browser bundle, served at /approve/app.js). Steps: code → sign in (or register) with a passkey →
// review and edit the caps → approve-init → the passkey authorizes the agent key on chain (fee sponsored) →
// approve-finalize → done. `document.body.dataset.state` names the current step (tests wait on it).
import {
  startAuthentication,
  startRegistration,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/browser";
import { formatTokenAmount, parseTokenAmount, tokenName } from "./amounts.ts";
import { api, unwrapOptions, type ApproveInit, type Lookup, type WalletUser } from "./api.ts";
import { authorizeAgentKey } from "./authorizeAgentKey.ts";
import { ApiCallError } from "@agent-ledger/client";
import { describeError } from "./describeError.ts";
import { checkPasskeyHost, rpIdOf } from "../shared/passkeyHost.ts";
import { formatCountdown, normalizePairingCode } from "./pairingCode.ts";

type State = "loading" | "code" | "signin" | "review" | "working" | "done" | "error";

const $ = <T extends HTMLElement = HTMLElement>(id: string) => {
  const el = document.getElementById(id);
  if (!el) throw new Error(`missing #${id}`);
  return el as T;
};
const SECTIONS: Record<Exclude<State, "loading" | "error">, string> = {
  code: "step-code",
  signin: "step-signin",
  review: "step-review",
  working: "step-progress",
  done: "step-done",
};

let code: string | null = null;
let user: WalletUser | null = null;
let lookup: Lookup | null = null;
let init: ApproveInit | null = null;
let authorizedTx: `0x${string}` | null = null;
let retry: (() => void) | null = null;
let countdown: ReturnType<typeof setInterval> | undefined;

function show(state: State, focus = true): void {
  document.body.dataset.state = state;
  for (const [s, id] of Object.entries(SECTIONS)) $(id).hidden = s !== state;
  $("error").hidden = state !== "error";
  const codeUnusable = state === "error" && ["expired", "not_found"].includes(document.body.dataset.errorKind ?? "");
  $("request").hidden = !code || state === "code" || state === "loading" || codeUnusable;
  if (focus && state !== "loading") {
    const heading = state === "error" ? $("error-title") : document.querySelector<HTMLElement>(`#${SECTIONS[state as keyof typeof SECTIONS]} h2`);
    if (heading) {
      heading.tabIndex = -1;
      heading.focus();
    }
  }
}

function status(text: string): void {
  $("status").textContent = text;
}

function fail(error: unknown, again: (() => void) | null): void {
  const d = describeError(error);
  $("error-title").textContent = d.title;
  $("error-detail").textContent = d.detail;
  document.body.dataset.errorKind = d.kind;
  retry = d.kind === "expired" ? null : d.kind === "not_found" ? () => show("code") : d.kind === "signin" ? () => show("signin") : again;
  $("retry").hidden = retry === null;
  $("retry").textContent = d.kind === "not_found" ? "Enter the code again" : d.kind === "signin" ? "Sign in again" : "Try again";
  status("");
  show("error");
}

function busy<A extends unknown[]>(button: HTMLButtonElement, fn: (...args: A) => Promise<void>) {
  return async (...args: A) => {
    if (button.disabled) return;
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    try {
      await fn(...args);
    } finally {
      button.disabled = false;
      button.removeAttribute("aria-busy");
    }
  };
}

// ── Pairing request ─────────────────────────────────────────────────────────────────────────────────────────────

function renderRequest(): void {
  $("code").textContent = code ?? "";
  $("agent-label").textContent = lookup?.agent_label ? `“${lookup.agent_label}”` : "An agent";
  clearInterval(countdown);
  if (!lookup) {
    $("code-expiry").textContent = "shown after you sign in";
    return;
  }
  const expires = Date.parse(lookup.expires_at);
  const tick = () => {
    const left = (expires - Date.now()) / 1000;
    $("code-expiry").textContent = left > 0 ? `in ${formatCountdown(left)}` : "expired";
    if (left <= 0) clearInterval(countdown);
  };
  tick();
  countdown = setInterval(tick, 1000);
}

async function loadRequest(): Promise<void> {
  if (!code) return show("code");
  status("Loading the pairing request…");
  lookup = await api.lookup(code);
  renderRequest();
  status("");
  if (lookup.status === "expired" || Date.parse(lookup.expires_at) <= Date.now()) {
    throw new ApiCallError(410, "code_expired", "This pairing code has expired (codes are valid for 5 minutes).");
  }
  if (lookup.status === "approved" || lookup.status === "claimed") {
    $("done-agent").textContent = lookup.agent_label ? `“${lookup.agent_label}”` : "The agent";
    for (const id of ["done-spend-cap", "done-per-call-cap", "done-expiry", "done-tx"]) $(id).textContent = "—";
    $("step-done-title").textContent = "Already approved";
    return show("done");
  }
  renderReview();
  show("review");
}

// ── Sign in / register ──────────────────────────────────────────────────────────────────────────────────────────

async function signIn(): Promise<void> {
  status("Waiting for your passkey…");
  const options = await api.authOptions();
  checkPasskeyHost(rpIdOf(options), window.location.href);
  const optionsJSON = unwrapOptions<PublicKeyCredentialRequestOptionsJSON>(options);
  const response = await startAuthentication({ optionsJSON });
  status("Checking your passkey…");
  user = await api.authVerify(response);
  await loadRequest();
}

async function register(): Promise<void> {
  status("Creating your passkey…");
  const label = `Agent Ledger wallet (${new Date().toISOString().slice(0, 10)})`;
  const options = await api.registerOptions(label);
  checkPasskeyHost(rpIdOf(options), window.location.href);
  const optionsJSON = unwrapOptions<PublicKeyCredentialCreationOptionsJSON>(options);
  const response = await startRegistration({ optionsJSON });
  status("Saving your passkey…");
  user = await api.registerVerify(response);
  await loadRequest();
}

// ── Review ──────────────────────────────────────────────────────────────────────────────────────────────────────

interface Caps {
  spendCap: bigint;
  perCallCap: bigint;
  ttlSeconds: number;
}

function fieldError(inputId: string, message: string): void {
  const input = $<HTMLInputElement>(inputId);
  $(`${inputId}-error`).textContent = message;
  if (message) input.setAttribute("aria-invalid", "true");
  else input.removeAttribute("aria-invalid");
}

/** Reads and validates the form; shows field errors and returns null when invalid. */
function readCaps(): Caps | null {
  let ok = true;
  const parse = (id: string, what: string): bigint | null => {
    try {
      const v = parseTokenAmount($<HTMLInputElement>(id).value);
      if (v <= 0n) throw new RangeError(`${what} must be more than 0`);
      fieldError(id, "");
      return v;
    } catch (error) {
      fieldError(id, error instanceof Error ? error.message : String(error));
      ok = false;
      return null;
    }
  };
  const spendCap = parse("spend-cap", "The total limit");
  const perCallCap = parse("per-call-cap", "The per-payment limit");
  if (spendCap !== null && perCallCap !== null && perCallCap > spendCap) {
    fieldError("per-call-cap", "The per-payment limit cannot be higher than the total limit");
    ok = false;
  }
  const ttlSeconds = Number($<HTMLSelectElement>("ttl").value);
  return ok && spendCap !== null && perCallCap !== null ? { spendCap, perCallCap, ttlSeconds } : null;
}

const dateText = (d: Date) => d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

function renderReview(): void {
  $("account").textContent = user?.managed_address ?? "";
  const token = init?.token ?? null;
  for (const el of document.querySelectorAll(".token-name")) el.textContent = tokenName(token);
  renderSummary();
}

function renderSummary(): void {
  const caps = readCapsQuietly();
  const who = lookup?.agent_label ? `“${lookup.agent_label}”` : "The agent";
  const unit = tokenName(init?.token ?? null);
  $("summary").textContent = caps
    ? `${who} will be able to pay up to ${formatTokenAmount(caps.spendCap)} ${unit} in total from your account, at most ${formatTokenAmount(caps.perCallCap)} per payment, until ${dateText(new Date(Date.now() + caps.ttlSeconds * 1000))}. You can revoke it earlier.`
    : "Fix the highlighted limits to continue.";
}

/** While the person types, an error message goes away as soon as its field is fixed (new errors wait for submit). */
function clearFixedErrors(): void {
  for (const id of ["spend-cap", "per-call-cap"]) {
    if (!$(`${id}-error`).textContent) continue;
    try {
      if (parseTokenAmount($<HTMLInputElement>(id).value) > 0n) fieldError(id, "");
    } catch {
      /* still wrong */
    }
  }
  const caps = readCapsQuietly();
  if (caps) fieldError("per-call-cap", "");
}

function readCapsQuietly(): Caps | null {
  try {
    const spendCap = parseTokenAmount($<HTMLInputElement>("spend-cap").value);
    const perCallCap = parseTokenAmount($<HTMLInputElement>("per-call-cap").value);
    if (spendCap <= 0n || perCallCap <= 0n || perCallCap > spendCap) return null;
    return { spendCap, perCallCap, ttlSeconds: Number($<HTMLSelectElement>("ttl").value) };
  } catch {
    return null;
  }
}

// ── Approve ─────────────────────────────────────────────────────────────────────────────────────────────────────

function progress(step: "init" | "sign" | "chain" | "finalize"): void {
  const order = ["init", "sign", "chain", "finalize"];
  for (const li of document.querySelectorAll<HTMLLIElement>("#progress li")) {
    const i = order.indexOf(li.dataset.step ?? "");
    li.dataset.state = i < order.indexOf(step) ? "done" : i === order.indexOf(step) ? "active" : "pending";
    if (i === order.indexOf(step)) li.setAttribute("aria-current", "step");
    else li.removeAttribute("aria-current");
  }
  const text: Record<typeof step, string> = {
    init: "Preparing the agent's key…",
    sign: "Confirm with your passkey (your device asks twice)…",
    chain: "Recording the permission on the Tempo network…",
    finalize: "Verifying the transaction…",
  };
  status(text[step]);
}

async function approve(caps: Caps): Promise<void> {
  if (!code) return;
  show("working");
  if (!init) {
    progress("init");
    const answer = await api.approveInit({
      code,
      spend_cap_wei: caps.spendCap.toString(),
      per_call_cap_wei: caps.perCallCap.toString(),
      session_ttl_seconds: caps.ttlSeconds,
    });
    // The page never needs (nor keeps) the agent's private key: the authorization names only its address.
    delete answer.agent_private_key;
    init = answer;
  }
  const current = init;
  if (!authorizedTx) {
    progress("sign");
    const { txHash, status: txStatus } = await authorizeAgentKey(current, {
      onAssertion: (n) => {
        if (n >= 2) progress("chain");
      },
    });
    if (txStatus !== "success") throw new Error(`the authorization transaction ${txHash} failed on chain`);
    authorizedTx = txHash;
  }
  progress("finalize");
  await api.approveFinalize({ code, tx_hash: authorizedTx });
  clearInterval(countdown);
  $("done-agent").textContent = current.agent_label ? `“${current.agent_label}”` : lookup?.agent_label ? `“${lookup.agent_label}”` : "The agent";
  const unit = tokenName(current.token);
  $("done-spend-cap").textContent = `${formatTokenAmount(current.spend_cap_wei)} ${unit}`;
  $("done-per-call-cap").textContent = `${formatTokenAmount(current.per_call_cap_wei)} ${unit}`;
  $("done-expiry").textContent = dateText(new Date(current.expiry_unix * 1000));
  $("done-tx").textContent = authorizedTx;
  $("code-expiry").textContent = "used";
  status("Approved.");
  show("done");
}

// ── Wiring ──────────────────────────────────────────────────────────────────────────────────────────────────────

function start(): void {
  const fromLink = new URLSearchParams(location.search).get("code");
  code = normalizePairingCode(fromLink);
  if (fromLink && !code) {
    $<HTMLInputElement>("code-input").value = fromLink;
    fieldError("code-input", "The code in this link is not valid: type the code shown in your terminal");
  }

  $("code-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const typed = normalizePairingCode($<HTMLInputElement>("code-input").value);
    if (!typed) return fieldError("code-input", "Enter the 8 letters shown in your terminal, like BCDF-GHJK");
    fieldError("code-input", "");
    code = typed;
    history.replaceState(null, "", `?code=${encodeURIComponent(typed)}`);
    renderRequest();
    void entry();
  });

  const signinButton = $<HTMLButtonElement>("signin");
  const registerButton = $<HTMLButtonElement>("register");
  signinButton.addEventListener(
    "click",
    busy(signinButton, async () => {
      try {
        await signIn();
      } catch (error) {
        fail(error, () => show("signin"));
      }
    }),
  );
  registerButton.addEventListener(
    "click",
    busy(registerButton, async () => {
      try {
        await register();
      } catch (error) {
        fail(error, () => show("signin"));
      }
    }),
  );

  for (const id of ["spend-cap", "per-call-cap", "ttl"]) {
    $(id).addEventListener("input", () => {
      clearFixedErrors();
      renderSummary();
    });
  }
  const approveButton = $<HTMLButtonElement>("approve");
  $("caps-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const caps = readCaps();
    if (!caps) return;
    void busy(approveButton, async () => {
      try {
        await approve(caps);
      } catch (error) {
        // Retrying reuses what already succeeded (the same agent key; the transaction once it landed).
        fail(
          error,
          () =>
            void busy(approveButton, async () => {
              try {
                await approve(caps);
              } catch (again) {
                fail(again, retry);
              }
            })(),
        );
      }
    })();
  });

  $("retry").addEventListener("click", () => {
    const again = retry;
    if (again) again();
  });

  void entry();
}

/** Where the flow starts: the code, then the session cookie decides between sign-in and the review. */
async function entry(): Promise<void> {
  renderRequest();
  if (!code) return show("code");
  try {
    status("Checking whether you are signed in…");
    user = await api.me();
    status("");
    if (!user) return show("signin");
    await loadRequest();
  } catch (error) {
    if (error instanceof ApiCallError && error.status === 401) {
      user = null;
      return show("signin");
    }
    fail(error, () => void entry());
  }
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
