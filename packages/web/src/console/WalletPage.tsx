// The owner's console, /wallet and /wallet/sessions/:id (docs/wallet.md § Owner console): sign in with the passkey,
// the account's balances, every agent session with caps, spent and remaining (exact), status and last payment, a
// session's payments (newest first, paged), and Revoke / Revoke all — at once in Agent Ledger, then on chain with the
// passkey (gas sponsored by our relay), each step shown with its outcome; a failed on-chain step can be retried.
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { Amount, Time } from "../shared/components.tsx";
import { shortHex } from "../shared/format.ts";
import { ApiCallError, onSignedOut, walletApi, type Me, type OwnerPayment, type OwnerSession, type RevokeAnswer } from "./api.ts";
import { balanceText, type Balance } from "./balance.ts";
import { PageHead, TableCard } from "./parts.tsx";
import { checkPasskeyHost, PasskeyHostError, rpIdOf } from "../shared/passkeyHost.ts";
import "./console.css";

const loadSigner = () => import("./signer.ts");

type ErrorLike = { name?: string; message?: string; shortMessage?: string; cause?: unknown };

/** An error as one line for the page, without a closing period (callers end the sentence). */
export function describe(error: unknown): string {
  if (error instanceof ApiCallError) return `${error.message} (${error.code})`;
  // The browser's refusal is often wrapped (the passkey signer answers "Failed to request credential." with the
  // NotAllowedError as its cause): look down the causes for it.
  for (let c: unknown = error, depth = 0; c && depth < 5; c = (c as ErrorLike).cause, depth++) {
    const name = (c as ErrorLike).name;
    if (name === "NotAllowedError" || name === "AbortError")
      return "your passkey did not sign (cancelled, timed out, or no passkey for this account on this device)";
  }
  const e = error as ErrorLike;
  return (e?.shortMessage ?? e?.message ?? String(error)).split("\n")[0]!.slice(0, 280).replace(/\.+$/, "");
}

/** The signed-in owner, or the sign-in card. */
export function useOwner(): {
  me: Me | null | undefined;
  signIn: () => Promise<void>;
  signOut: () => Promise<void>;
  error: string | null;
  busy: boolean;
  moveTo: string | null;
} {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  /** This page at the passkey's domain, when it is open at another address (127.0.0.1 instead of localhost). */
  const [moveTo, setMoveTo] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    walletApi.me().then(setMe, (e) => {
      setError(describe(e));
      setMe(null);
    });
    // the sign-in can end while the page is open (expiry, sign-out in another tab): back to the sign-in card, saying why
    return onSignedOut(() => {
      setMe(null);
      setError("Your sign-in has ended. Sign in again with your passkey to continue.");
    });
  }, []);
  const signIn = useCallback(async () => {
    setBusy(true);
    setError(null);
    try {
      const options = await walletApi.authOptions();
      checkPasskeyHost(rpIdOf(options), window.location.href);
      const { passkeyAssertion } = await loadSigner();
      const assertion = await passkeyAssertion(options);
      setMe(await walletApi.authVerify(assertion));
    } catch (e) {
      setError(e instanceof PasskeyHostError ? e.message : describe(e));
      if (e instanceof PasskeyHostError) setMoveTo(e.url);
    } finally {
      setBusy(false);
    }
  }, []);
  const signOut = useCallback(async () => {
    await walletApi.logout().catch(() => undefined);
    setMe(null);
  }, []);
  return { me, signIn, signOut, error, busy, moveTo };
}

export function SignIn({
  what,
  signIn,
  error,
  busy,
  moveTo,
}: {
  what: string;
  signIn: () => Promise<void>;
  error: string | null;
  busy: boolean;
  moveTo?: string | null;
}) {
  return (
    <section class="card console-signin" aria-labelledby="signin-title" data-console="signin">
      <h2 id="signin-title">Sign in with your passkey</h2>
      <p class="muted">{what} Your passkey is the one you created when you approved an agent on the approval page.</p>
      <button type="button" onClick={signIn} disabled={busy} aria-busy={busy ? "true" : undefined}>
        {busy ? "Waiting for your passkey…" : "Sign in with passkey"}
      </button>
      {error ? (
        <p class="console-error" role="alert">
          {error}
        </p>
      ) : null}
      {moveTo ? (
        <p>
          <a href={moveTo} data-console="move-to">
            Open this page at {new URL(moveTo).host}
          </a>
        </p>
      ) : null}
    </section>
  );
}

const STATUS_LABEL: Record<OwnerSession["status"], string> = { active: "Active", expired: "Expired", revoked: "Revoked", pending: "Pending on chain" };

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{STATUS_LABEL[status as OwnerSession["status"]] ?? status}</span>;
}

type Step = { state: "idle" | "working" | "done" | "failed"; text: string };
interface RevokeProgress {
  label: string;
  db: Step;
  chain: Step;
  sessionIds: string[];
}

function ChainRevokeCell({ s }: { s: OwnerSession }) {
  const c = s.chain_revoke;
  if (!c.status) return s.status === "revoked" ? <span class="muted small">not needed</span> : <span class="muted small">—</span>;
  return (
    <span class={`chain-${c.status}`}>
      {c.status === "confirmed" ? "Revoked on chain" : c.status === "failed" ? "Failed" : "Pending"}
      {c.tx_hash ? (
        <>
          {" "}
          · <a href={`/tx/${c.tx_hash}`}>tx</a>
        </>
      ) : null}
      {c.status === "failed" && c.error ? (
        <span class="small muted block chain-reason" title={c.error}>
          {c.error}
        </span>
      ) : null}
    </span>
  );
}

/**
 * Runs both revoke steps: the database (the API call), then the passkey signs the on-chain revoke and the API confirms
 * it. `openIds`: the sessions the page showed active or pending (the count step 1 reports as stopped now; the API's
 * answer also lists sessions revoked earlier).
 */
async function runRevoke(start: () => Promise<RevokeAnswer>, label: string, openIds: ReadonlySet<string>, update: (p: RevokeProgress) => void): Promise<void> {
  const p: RevokeProgress = {
    label,
    db: { state: "working", text: "Stopping payments in Agent Ledger…" },
    chain: { state: "idle", text: "Waiting" },
    sessionIds: [],
  };
  update({ ...p });
  let answer: RevokeAnswer;
  try {
    answer = await start();
  } catch (e) {
    p.db = { state: "failed", text: `Could not revoke: ${describe(e)}` };
    return update({ ...p });
  }
  p.sessionIds = answer.sessions.map((s) => s.session_id);
  const stopped = answer.sessions.filter((s) => openIds.has(s.session_id)).length;
  p.db = {
    state: "done",
    text:
      stopped > 0
        ? `Stopped in Agent Ledger: payments are refused from now on (${stopped} session${stopped === 1 ? "" : "s"}).`
        : "Already stopped in Agent Ledger: payments stay refused.",
  };
  const req = answer.chain_revoke_request;
  if (!req) {
    p.chain = { state: "done", text: "Nothing to revoke on chain (already revoked, expired, or never authorized)." };
    return update({ ...p });
  }
  p.chain = { state: "working", text: "Confirm with your passkey to revoke the agent key on chain (the fee is paid by Agent Ledger)…" };
  update({ ...p });
  let txHash: string | undefined;
  try {
    const { revokeKeysOnChain } = await loadSigner();
    txHash = (await revokeKeysOnChain(req)).txHash;
    p.chain = { state: "working", text: "Submitted; reading the keychain to confirm…" };
    update({ ...p });
  } catch (e) {
    const reason = describe(e);
    await walletApi.confirm({ session_ids: req.session_ids, error: reason }).catch(() => undefined);
    p.chain = { state: "failed", text: `On-chain revoke failed: ${reason}. Payments through Agent Ledger stay stopped; retry to revoke the key on chain.` };
    return update({ ...p });
  }
  try {
    const out = await walletApi.confirm({ session_ids: req.session_ids, tx_hash: txHash });
    const failed = out.sessions.filter((s) => s.chain_revoke.status !== "confirmed");
    p.chain =
      failed.length === 0
        ? {
            state: "done",
            text:
              req.session_ids.length === 1
                ? "Revoked on chain: the keychain reports the agent key revoked."
                : `Revoked on chain: the keychain reports all ${req.session_ids.length} agent keys revoked.`,
          }
        : { state: "failed", text: `On-chain revoke not confirmed: ${failed[0]!.chain_revoke.error ?? "unknown reason"}` };
  } catch (e) {
    p.chain = { state: "failed", text: `Could not confirm the on-chain revoke: ${describe(e)}` };
  }
  update({ ...p });
}

function StepLine({ n, step, title }: { n: number; step: Step; title: string }) {
  const icon = step.state === "done" ? "✓" : step.state === "failed" ? "✗" : step.state === "working" ? "…" : "○";
  return (
    <li class={`step step-${step.state}`} data-step={n === 1 ? "db" : "chain"} data-state={step.state}>
      <span class="step-icon" aria-hidden="true">
        {icon}
      </span>
      <span>
        <strong>{title}</strong> <span class="sr-only">({step.state})</span>
        <br />
        {step.text}
      </span>
    </li>
  );
}

function RevokePanel({ progress, onRetry, onClose }: { progress: RevokeProgress; onRetry: () => void; onClose: () => void }) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => ref.current?.focus(), []);
  const finished = progress.chain.state === "done" || progress.chain.state === "failed" || progress.db.state === "failed";
  return (
    <section class="card revoke-panel" aria-labelledby="revoke-title" tabIndex={-1} ref={ref} data-console="revoke-progress">
      <h2 id="revoke-title">
        {!finished ? `Revoking ${progress.label}…` : progress.chain.state === "done" ? `Revoked ${progress.label}` : `Revoking ${progress.label}: not finished`}
      </h2>
      <ol class="steps" aria-live="polite">
        <StepLine n={1} step={progress.db} title="1. Stop in Agent Ledger" />
        <StepLine n={2} step={progress.chain} title="2. Revoke the key on chain" />
      </ol>
      {finished ? (
        <div class="actions">
          {progress.chain.state === "failed" ? (
            // the button goes away while the retry runs: focus moves to the panel, whose steps are read out (not to the page's top)
            <button
              type="button"
              onClick={() => {
                ref.current?.focus();
                onRetry();
              }}
            >
              Retry on-chain revoke
            </button>
          ) : null}
          <button type="button" class="secondary" onClick={onClose}>
            Close
          </button>
        </div>
      ) : null}
    </section>
  );
}

function ConfirmPanel({ text, onConfirm, onCancel }: { text: string; onConfirm: () => void; onCancel: () => void }) {
  const ref = useRef<HTMLButtonElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <section class="card confirm-panel" role="alertdialog" aria-labelledby="confirm-title" aria-describedby="confirm-text" data-console="confirm">
      <h2 id="confirm-title">Are you sure?</h2>
      <p id="confirm-text">{text}</p>
      <div class="actions">
        <button type="button" ref={ref} class="danger" onClick={onConfirm}>
          Yes, revoke
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </section>
  );
}

/** Confirm → both steps; `reload` refreshes the page's data after each change. */
function useRevoke(reload: () => void) {
  const [confirming, setConfirming] = useState<{ text: string; run: () => void } | null>(null);
  const [progress, setProgress] = useState<RevokeProgress | null>(null);
  // one panel per revoke the owner confirmed (a new one takes the focus); a retry keeps it, so focus and the live region stay
  const [run, setRun] = useState(0);
  const revoke = (start: () => Promise<RevokeAnswer>, label: string, text: string, open: readonly OwnerSession[]) => {
    const openIds = new Set(open.filter((s) => s.status === "active" || s.status === "pending").map((s) => s.session_id));
    setConfirming({
      text,
      run: () => {
        setConfirming(null);
        setRun((n) => n + 1);
        void runRevoke(start, label, openIds, setProgress).then(reload);
      },
    });
  };
  const panels: ComponentChildren = (
    <>
      {confirming ? <ConfirmPanel text={confirming.text} onConfirm={confirming.run} onCancel={() => setConfirming(null)} /> : null}
      {progress ? (
        <RevokePanel
          key={run}
          progress={progress}
          onRetry={() =>
            void runRevoke(
              progress.sessionIds.length === 1 ? () => walletApi.revoke(progress.sessionIds[0]!) : () => walletApi.revokeAll(),
              progress.label,
              new Set(),
              setProgress,
            ).then(reload)
          }
          onClose={() => setProgress(null)}
        />
      ) : null}
    </>
  );
  return { revoke, panels };
}

const agentName = (s: OwnerSession) => s.agent_label ?? `agent ${shortHex(s.agent_key_address)}`;
const revokeText = (what: string, many = false) =>
  many
    ? `${what} Payments through Agent Ledger stop at once; then your passkey signs one transaction revoking their agent keys on chain (the network fee is paid by Agent Ledger), so no key can spend even outside Agent Ledger.`
    : `${what} Payments through Agent Ledger stop at once; then your passkey signs the revocation of the agent key on chain (the network fee is paid by Agent Ledger), so the key cannot spend even outside Agent Ledger.`;

export function WalletPage() {
  const owner = useOwner();
  const [sessions, setSessions] = useState<OwnerSession[] | null>(null);
  const [balances, setBalances] = useState<Balance[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [balanceError, setBalanceError] = useState<string | null>(null);
  const reload = useCallback(() => {
    walletApi.sessions().then(
      (r) => setSessions(r.items),
      (e) => setError(describe(e)),
    );
    walletApi.balances().then(
      (r) => setBalances(r.balances),
      (e) => setBalanceError(describe(e)),
    );
  }, []);
  useEffect(() => {
    document.title = "Your wallet — Agent Ledger";
    if (owner.me) reload();
  }, [owner.me, reload]);
  const { revoke, panels } = useRevoke(reload);

  if (owner.me === undefined) return <p class="muted">Loading…</p>;
  if (owner.me === null) {
    return (
      <>
        <Head />
        <SignIn what="See every agent that can spend your money, what each spent, and stop any of them." {...owner} />
      </>
    );
  }
  const active = sessions?.filter((s) => s.status === "active" || s.status === "pending") ?? [];
  const retryable = sessions?.filter((s) => s.chain_revoke.status === "failed" || s.chain_revoke.status === "pending") ?? [];
  return (
    <>
      <Head>
        <button type="button" class="secondary small-btn" onClick={owner.signOut}>
          Sign out
        </button>
      </Head>
      <section class="card" aria-labelledby="account-title">
        <h2 id="account-title">Account</h2>
        <p class="mono" id="account-address" data-console="account">
          {owner.me.managed_address}
        </p>
        <h3 class="h3">Balances</h3>
        {balanceError ? (
          <p class="console-error" role="alert">
            Balances unavailable: {balanceError}
          </p>
        ) : null}
        {balances ? (
          <ul class="balances" data-console="balances">
            {balances.map((b) => {
              const t = balanceText(b);
              return (
                <li data-token={b.token.toLowerCase()}>
                  <span class="num">{t.value}</span> <span class="unit">{t.unit}</span>
                </li>
              );
            })}
          </ul>
        ) : balanceError ? null : (
          <p class="muted">Reading the chain…</p>
        )}
      </section>
      {panels}
      <TableCard
        id="sessions-title"
        title="Agents you approved"
        actions={
          active.length > 0 ? (
            <button
              type="button"
              class="danger"
              onClick={() =>
                revoke(
                  () => walletApi.revokeAll(),
                  "every agent",
                  revokeText(`Revoke all ${active.length} active agent session${active.length === 1 ? "" : "s"}?`, active.length > 1),
                  active,
                )
              }
            >
              Revoke all
            </button>
          ) : retryable.length > 1 ? (
            // nothing active, several keys still to revoke on chain: one passkey prompt for all of them
            <button
              type="button"
              class="secondary"
              onClick={() =>
                revoke(
                  () => walletApi.revokeAll(),
                  "every agent",
                  `Retry revoking on chain the ${retryable.length} agent keys not yet confirmed revoked, with your passkey (one transaction)?`,
                  [],
                )
              }
            >
              Retry all on chain
            </button>
          ) : null
        }
        note={
          error ? (
            <p class="console-error" role="alert">
              {error}
            </p>
          ) : sessions && sessions.length > 0 && active.length === 0 ? (
            <p class="muted" data-console="none-active">
              None of these agents can spend your money through Agent Ledger now: each session is revoked or expired.
            </p>
          ) : null
        }
        rows={sessions}
        empty={
          <>
            No agent is paired with this account yet. Run <code>agent-ledger pair</code> on the agent's machine.
          </>
        }
        table={(sessions) => (
          <table class="sessions" data-console="sessions">
            <caption class="sr-only">Agent sessions, newest first. Amounts in token units, exact.</caption>
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col" class="r">
                  Per payment
                </th>
                <th scope="col" class="r">
                  Total cap
                </th>
                <th scope="col" class="r">
                  Spent
                </th>
                <th scope="col" class="r">
                  Remaining
                </th>
                <th scope="col">Last payment</th>
                <th scope="col">On chain</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sessions.map((s) => (
                <tr data-session={s.session_id} data-status={s.status}>
                  <td data-label="Agent">
                    <a href={`/wallet/sessions/${s.session_id}`}>{agentName(s)}</a>
                  </td>
                  <td data-label="Status">
                    <StatusBadge status={s.status} />
                  </td>
                  <td data-label="Created" class="nowrap">
                    <Time iso={s.created_at} />
                  </td>
                  <td data-label="Expires" class="nowrap">
                    <Time iso={s.expires_at} />
                  </td>
                  <td data-label="Per payment" class="r">
                    <Amount units={s.per_call_cap_wei} token={s.token} />
                  </td>
                  <td data-label="Total cap" class="r">
                    <Amount units={s.spend_cap_wei} token={s.token} />
                  </td>
                  <td data-label="Spent" class="r" data-col="spent">
                    <Amount units={s.spend_used_wei} token={s.token} />
                  </td>
                  <td data-label="Remaining" class="r" data-col="remaining">
                    <Amount units={s.spend_remaining_wei} token={s.token} />
                  </td>
                  <td data-label="Last payment">
                    {s.last_payment ? (
                      <>
                        <Amount units={s.last_payment.amount_wei} token={s.token} />
                        {/* a failed or still reserved payment is not money sent: said so (it read as paid) */}
                        {s.last_payment.status !== "sent" ? (
                          <>
                            {" "}
                            <span class={`badge badge-${s.last_payment.status}`}>{s.last_payment.status}</span>
                          </>
                        ) : null}
                        <span class="small muted block">
                          <Time iso={s.last_payment.created_at} />
                        </span>
                      </>
                    ) : (
                      <span class="muted">none</span>
                    )}
                  </td>
                  <td data-label="On chain">
                    <ChainRevokeCell s={s} />
                  </td>
                  <td data-label="Actions">
                    {s.status === "active" || s.status === "pending" ? (
                      <button
                        type="button"
                        class="danger small-btn"
                        aria-label={`Revoke ${agentName(s)}`}
                        onClick={() => revoke(() => walletApi.revoke(s.session_id), agentName(s), revokeText(`Revoke “${agentName(s)}”?`), [s])}
                      >
                        Revoke
                      </button>
                    ) : s.chain_revoke.status === "failed" || s.chain_revoke.status === "pending" ? (
                      <button
                        type="button"
                        class="secondary small-btn"
                        aria-label={`Retry the on-chain revoke of ${agentName(s)}`}
                        onClick={() =>
                          revoke(() => walletApi.revoke(s.session_id), agentName(s), "Retry revoking the agent key on chain with your passkey?", [s])
                        }
                      >
                        Retry on chain
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      />
    </>
  );
}

function Head({ children }: { children?: ComponentChildren }) {
  return (
    <PageHead title="Your wallet" lede="Every agent you approved, what it spent, and a way to stop it — in Agent Ledger and on chain.">
      {children}
    </PageHead>
  );
}

export function WalletSessionPage({ id }: { id: string }) {
  const owner = useOwner();
  const [session, setSession] = useState<OwnerSession | null | undefined>(undefined);
  // null until the first page is read; a failed read is said (it was swallowed: the card said "No payments yet.")
  const [payments, setPayments] = useState<OwnerPayment[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [paymentsError, setPaymentsError] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const reload = useCallback(() => {
    walletApi.session(id).then(setSession, (e) => (e instanceof ApiCallError && e.status === 404 ? setSession(null) : setError(describe(e))));
    walletApi.payments(id, null).then(
      (r) => {
        setPayments(r.items);
        setCursor(r.next_cursor);
        setPaymentsError(null);
      },
      (e) => {
        setPayments((p) => p ?? []);
        setPaymentsError(`Payments could not be read: ${describe(e)}. Reload the page to try again.`);
      },
    );
  }, [id]);
  useEffect(() => {
    document.title = "Agent session — Agent Ledger";
    if (owner.me) reload();
  }, [owner.me, reload]);
  const { revoke, panels } = useRevoke(reload);
  const more = async () => {
    setLoadingMore(true);
    try {
      const r = await walletApi.payments(id, cursor);
      setPayments((p) => [...(p ?? []), ...r.items]);
      setCursor(r.next_cursor);
      setPaymentsError(null);
    } catch (e) {
      // said next to the button (it was set where nothing showed it once the session was on the page)
      setPaymentsError(`Older payments could not be read: ${describe(e)}. Try again, or reload the page.`);
    } finally {
      setLoadingMore(false);
    }
  };
  if (owner.me === undefined) return <p class="muted">Loading…</p>;
  if (owner.me === null) return <SignIn what="Sign in to see this agent session." {...owner} />;
  if (session === null)
    return (
      <section class="card">
        <h1>Session not found</h1>
        <p>
          No session of yours has this id. <a href="/wallet">Back to your wallet</a>
        </p>
      </section>
    );
  if (!session) return <p class="muted">{error ?? "Loading…"}</p>;
  const s = session;
  return (
    <>
      <p class="crumbs">
        <a href="/wallet">Your wallet</a> / session
      </p>
      <div class="page-head">
        <div>
          <h1>
            {agentName(s)} <StatusBadge status={s.status} />
          </h1>
          <p class="lede mono small">agent key {s.agent_key_address}</p>
        </div>
        {s.status === "active" || s.status === "pending" ? (
          <button
            type="button"
            class="danger"
            onClick={() => revoke(() => walletApi.revoke(s.session_id), agentName(s), revokeText(`Revoke “${agentName(s)}”?`), [s])}
          >
            Revoke
          </button>
        ) : s.chain_revoke.status === "failed" || s.chain_revoke.status === "pending" ? (
          <button
            type="button"
            class="secondary"
            onClick={() => revoke(() => walletApi.revoke(s.session_id), agentName(s), "Retry revoking the agent key on chain with your passkey?", [s])}
          >
            Retry on-chain revoke
          </button>
        ) : null}
      </div>
      {panels}
      <section class="card" aria-label="Caps and usage">
        <dl class="facts console-facts" data-console="session-facts">
          <div>
            <dt>Created</dt>
            <dd>
              <Time iso={s.created_at} />
            </dd>
          </div>
          <div>
            <dt>Expires</dt>
            <dd>
              <Time iso={s.expires_at} />
            </dd>
          </div>
          <div>
            <dt>Per payment cap</dt>
            <dd>
              <Amount units={s.per_call_cap_wei} token={s.token} />
            </dd>
          </div>
          <div>
            <dt>Total cap</dt>
            <dd>
              <Amount units={s.spend_cap_wei} token={s.token} />
            </dd>
          </div>
          <div>
            <dt>Spent</dt>
            <dd data-col="spent">
              <Amount units={s.spend_used_wei} token={s.token} />
            </dd>
          </div>
          <div>
            <dt>Remaining</dt>
            <dd data-col="remaining">
              <Amount units={s.spend_remaining_wei} token={s.token} />
            </dd>
          </div>
          <div>
            <dt>Revoked</dt>
            <dd>
              {s.revoked_at ? (
                <>
                  <Time iso={s.revoked_at} /> by {s.revoked_by}
                </>
              ) : (
                "no"
              )}
            </dd>
          </div>
          <div>
            <dt>On chain</dt>
            <dd>
              <ChainRevokeCell s={s} />
            </dd>
          </div>
        </dl>
      </section>
      <TableCard
        id="payments-title"
        title={`Payments (${s.payments_count})`}
        rows={payments}
        empty={paymentsError ? "No payment could be read." : "No payments yet."}
        after={
          <>
            {cursor && payments ? (
              <div class="actions">
                <button type="button" class="secondary" onClick={more} disabled={loadingMore}>
                  {loadingMore ? "Loading…" : "Load older payments"}
                </button>
                <span class="muted small" data-console="payments-shown">
                  Showing the {payments.length} newest of {s.payments_count}.
                </span>
              </div>
            ) : null}
            {paymentsError ? (
              <p class="console-error" role="alert" data-console="payments-error">
                {paymentsError}
              </p>
            ) : null}
          </>
        }
        table={(payments) => (
          <table class="stack" data-console="payments">
            <caption class="sr-only">Payments of this session, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">To</th>
                <th scope="col" class="r">
                  Amount
                </th>
                <th scope="col">Memo</th>
                <th scope="col">Status</th>
                <th scope="col">Transaction</th>
              </tr>
            </thead>
            <tbody>
              {payments.map((p) => (
                <tr data-payment={p.id}>
                  <td data-label="Time" class="nowrap">
                    <Time iso={p.created_at} />
                  </td>
                  <td data-label="To" class="mono small">
                    <span class="addr" title={p.to}>
                      {shortHex(p.to)}
                    </span>
                  </td>
                  <td data-label="Amount" class="r">
                    <Amount units={p.amount_wei} token={p.token} />
                  </td>
                  <td data-label="Memo">{p.memo ?? <span class="muted">—</span>}</td>
                  <td data-label="Status">
                    <span class={`badge badge-${p.status}`}>{p.status}</span>
                    {p.error ? <span class="small muted block">{p.error}</span> : null}
                  </td>
                  <td data-label="Transaction">
                    {p.tx_hash ? (
                      <a class="mono small" href={`/tx/${p.tx_hash}`}>
                        {shortHex(p.tx_hash)}
                      </a>
                    ) : (
                      <span class="muted">—</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      />
    </>
  );
}
