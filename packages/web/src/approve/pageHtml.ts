// The approval page's static HTML and CSS. All behaviour is in main.ts (bundled by `npm run build` into a hashed /assets/approve-<hash>.js); the markup
// works without any framework and every step is a <section> that is shown when it is current.

export const APPROVAL_PAGE_CSS = `
:root { color-scheme: light dark; --fg: #1b1d21; --muted: #5b616b; --bg: #f7f7f8; --card: #fff; --line: #d8dbe0;
  --accent: #0b5bd3; --accent-fg: #fff; --ok: #0a7a3d; --bad: #b3261e; --warn-bg: #fff4e5; --bad-bg: #fdecea; --ok-bg: #e8f5ee; }
@media (prefers-color-scheme: dark) { :root { --fg: #e8eaed; --muted: #a7adb6; --bg: #16181c; --card: #1f2228; --line: #3a3f47;
  --accent: #7aa7ff; --accent-fg: #0b1020; --ok: #5fd38d; --bad: #ff8a80; --warn-bg: #3a2f1c; --bad-bg: #3b1f1d; --ok-bg: #1c3326; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 36rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
h2 { font-size: 1.15rem; margin: 0 0 .5rem; }
section, .card { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 1rem 1.25rem; margin: 0 0 1rem; }
[hidden] { display: none !important; }
p { margin: .5rem 0; }
.muted { color: var(--muted); font-size: .9rem; }
.code { font: 600 1.6rem/1.2 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; letter-spacing: .12em; }
.mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; word-break: break-all; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: .5rem 0; }
dt { color: var(--muted); }
dd { margin: 0; }
label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
.hint { display: block; font-weight: 400; color: var(--muted); font-size: .875rem; }
input, select { font: inherit; width: 100%; padding: .5rem .6rem; border: 1px solid var(--line); border-radius: 8px; background: var(--bg); color: var(--fg); }
input[aria-invalid="true"] { border-color: var(--bad); }
.row { display: flex; gap: .5rem; flex-wrap: wrap; margin-top: 1rem; }
button { font: inherit; font-weight: 600; padding: .6rem 1rem; border-radius: 8px; border: 1px solid var(--accent); background: var(--accent); color: var(--accent-fg); cursor: pointer; }
button.secondary { background: transparent; color: var(--accent); }
button:disabled { opacity: .55; cursor: progress; }
[tabindex="-1"]:focus { outline: none; }
button:focus-visible, input:focus-visible, select:focus-visible, a:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.summary { background: var(--warn-bg); border-radius: 8px; padding: .75rem 1rem; margin: 1rem 0 0; }
.alert { border-color: var(--bad); background: var(--bad-bg); }
.success { border-color: var(--ok); background: var(--ok-bg); }
.success h2 { color: var(--ok); }
.alert h2 { color: var(--bad); }
ol.steps { padding-left: 1.25rem; margin: .5rem 0; }
ol.steps li[data-state="active"] { font-weight: 600; }
ol.steps li[data-state="done"]::marker { content: "✓  "; color: var(--ok); }
.field-error { color: var(--bad); font-size: .875rem; margin: .25rem 0 0; }
`;

/** The page. `nonce`-free: the CSP allows only same-origin scripts and styles. */
export function approvalPageHtml(options: { scriptPath: string; stylePath: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Approve an agent · Agent Ledger</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${options.stylePath}">
<script type="module" src="${options.scriptPath}"></script>
</head>
<body data-state="loading">
<main>
  <h1 id="title" tabindex="-1">Approve an agent</h1>
  <noscript><section class="alert"><h2>JavaScript is required</h2><p>This page uses your passkey through the browser, which needs JavaScript.</p></section></noscript>

  <section id="request" aria-labelledby="request-title" hidden>
    <h2 id="request-title">Who is asking</h2>
    <p><strong id="agent-label">An agent</strong> wants permission to make payments from your account.</p>
    <dl>
      <dt>Pairing code</dt><dd><span id="code" class="code"></span></dd>
      <dt>Code expires</dt><dd><span id="code-expiry">—</span></dd>
    </dl>
    <p class="muted">Check that this code is the one shown in your terminal. If it is not, close this page.</p>
  </section>

  <section id="step-code" aria-labelledby="step-code-title" hidden>
    <h2 id="step-code-title">Enter the pairing code</h2>
    <form id="code-form" novalidate>
      <label for="code-input">Code from your terminal <span class="hint">8 letters, like BCDF-GHJK</span></label>
      <input id="code-input" name="code" autocomplete="off" autocapitalize="characters" spellcheck="false" inputmode="text" aria-describedby="code-input-error" required>
      <p id="code-input-error" class="field-error" role="alert"></p>
      <div class="row"><button type="submit">Continue</button></div>
    </form>
  </section>

  <section id="step-signin" aria-labelledby="step-signin-title" hidden>
    <h2 id="step-signin-title">Sign in with your passkey</h2>
    <p>Your passkey controls the account the agent will pay from. Nothing is approved yet.</p>
    <div class="row">
      <button type="button" id="signin">Sign in with a passkey</button>
      <button type="button" id="register" class="secondary">Create a new passkey</button>
    </div>
    <p class="muted">First time here? Create a passkey: it makes a new account for you on the Tempo network.</p>
  </section>

  <section id="step-review" aria-labelledby="step-review-title" hidden>
    <h2 id="step-review-title">Choose what the agent may spend</h2>
    <p>Signed in. Your account: <span id="account" class="mono"></span></p>
    <form id="caps-form" novalidate>
      <label for="spend-cap">Total spending limit <span class="hint" id="spend-cap-hint">For the whole session, in <span class="token-name">USD</span></span></label>
      <input id="spend-cap" name="spend_cap" inputmode="decimal" autocomplete="off" value="10.00" aria-describedby="spend-cap-hint spend-cap-error" required>
      <p id="spend-cap-error" class="field-error" role="alert"></p>
      <label for="per-call-cap">Limit per payment <span class="hint" id="per-call-cap-hint">The most a single payment may move</span></label>
      <input id="per-call-cap" name="per_call_cap" inputmode="decimal" autocomplete="off" value="1.00" aria-describedby="per-call-cap-hint per-call-cap-error" required>
      <p id="per-call-cap-error" class="field-error" role="alert"></p>
      <label for="ttl">Valid for</label>
      <select id="ttl" name="ttl">
        <option value="900">15 minutes</option>
        <option value="3600">1 hour</option>
        <option value="28800">8 hours</option>
        <option value="86400" selected>24 hours</option>
        <option value="604800">7 days</option>
        <option value="2592000">30 days</option>
      </select>
      <div class="summary" id="summary" aria-live="polite"></div>
      <div class="row">
        <button type="submit" id="approve">Approve with passkey</button>
      </div>
      <p class="muted">Your device will ask for your passkey twice: once for the spending permission, once for the transaction that records it. Network fees are paid by us.</p>
    </form>
  </section>

  <section id="step-progress" aria-labelledby="step-progress-title" hidden>
    <h2 id="step-progress-title">Approving…</h2>
    <ol class="steps" id="progress">
      <li data-step="init">Preparing the agent's key</li>
      <li data-step="sign">Confirm with your passkey</li>
      <li data-step="chain">Recording the permission on the Tempo network</li>
      <li data-step="finalize">Verifying the transaction</li>
    </ol>
  </section>

  <section id="step-done" class="success" aria-labelledby="step-done-title" hidden>
    <h2 id="step-done-title">Agent approved</h2>
    <p><strong id="done-agent">The agent</strong> can now pay from your account within the limits below. Go back to your terminal: it has received its access.</p>
    <dl>
      <dt>Total limit</dt><dd id="done-spend-cap"></dd>
      <dt>Per payment</dt><dd id="done-per-call-cap"></dd>
      <dt>Valid until</dt><dd id="done-expiry"></dd>
      <dt>Transaction</dt><dd><span id="done-tx" class="mono"></span></dd>
    </dl>
    <p class="muted">To end it early, run <code>agent-ledger revoke</code> on the agent's machine.</p>
  </section>

  <section id="error" class="alert" role="alert" aria-labelledby="error-title" hidden>
    <h2 id="error-title">Something went wrong</h2>
    <p id="error-detail"></p>
    <div class="row">
      <button type="button" id="retry">Try again</button>
    </div>
  </section>

  <p id="status" class="muted" role="status" aria-live="polite"></p>
</main>
</body>
</html>
`;
}
