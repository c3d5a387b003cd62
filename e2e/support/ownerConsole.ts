import type { KeyObject } from "node:crypto";
import type { Browser, BrowserContext, CDPSession, Page } from "playwright-core";
import { expect } from "vitest";
import type { SoftAuthenticator } from "../../packages/api/test/support/softAuthenticator.ts";

// The owner console's browser set-up, shared by e2e/console.test.ts and e2e/console.revoke.test.ts: a Chromium
// profile whose CDP virtual authenticator holds the owner's passkey (the same P-256 key the API registered through
// the software authenticator), and the passkey sign-in on /wallet.

export interface OwnerPage {
  context: BrowserContext;
  page: Page;
  /** Takes the passkey out of the virtual authenticator: the next passkey prompt finds no credential and fails. */
  removePasskey(): Promise<void>;
  /** Puts the passkey back (same credential id and key). */
  restorePasskey(): Promise<void>;
}

/** A browser profile whose virtual authenticator holds `authn`'s passkey; the page's console and errors go to `pageLog`. */
export async function ownerPage(browser: Browser, authn: SoftAuthenticator, pageLog: string[]): Promise<OwnerPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  page.on("console", (m) => void pageLog.push(`[console.${m.type()}] ${m.text()}`));
  page.on("pageerror", (e) => void pageLog.push(`[pageerror] ${e.message}`));
  const cdp: CDPSession = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable", { enableUI: false });
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  const a = authn as unknown as { privateKey: KeyObject; credentialId: Buffer; userHandle: string };
  const credentialId = Buffer.from(a.credentialId).toString("base64");
  const addPasskey = async () => {
    await cdp.send("WebAuthn.addCredential", {
      authenticatorId,
      credential: {
        credentialId,
        isResidentCredential: true,
        rpId: "localhost",
        privateKey: (a.privateKey.export({ format: "der", type: "pkcs8" }) as Buffer).toString("base64"),
        userHandle: Buffer.from(a.userHandle, "base64url").toString("base64"),
        signCount: 1000,
      },
    });
  };
  await addPasskey();
  return {
    context,
    page,
    removePasskey: async () => {
      await cdp.send("WebAuthn.removeCredential", { authenticatorId, credentialId });
      expect((await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials).toEqual([]);
    },
    restorePasskey: addPasskey,
  };
}

/** Opens /wallet and signs in with the passkey; resolves once the page shows `managed` as the account. */
export async function signIn(page: Page, base: string, managed: string): Promise<void> {
  await page.goto(`${base}/wallet`);
  await page.getByRole("button", { name: "Sign in with passkey" }).click();
  await expect.poll(() => page.textContent("[data-console=account]"), { timeout: 20_000 }).toBe(managed);
}
