import { encodeFunctionData, type Hex } from "viem";
import { Abis } from "viem/tempo";
import { describe, expect, it } from "vitest";
import { ACCOUNT_KEYCHAIN_ADDRESS } from "./constants.ts";
import { checkSponsorship, type SponsorCandidate } from "./checkSponsorship.ts";

const token = "0x20c0000000000000000000000000000000000000";
const agentKey = "0x3008dc227c1e9e69390e6b270abe809097b69fae";
const user = "0x76c1ad63902ec4ea90e967bc82bb20b4db9befff";
const e = { agentKey, chainId: 31337, token, spendCap: 50_000_000n, expiryUnix: 1_795_332_156, maxGas: 3_000_000n };
const viemStyle: SponsorCandidate = {
  from: user,
  chainId: 31337,
  gas: 2_000_000n,
  calls: [{ to: "0x0000000000000000000000000000000000000000", value: 0n, data: "0x" }],
  keyAuthorization: { address: agentKey, chainId: 31337n, expiry: 1_795_332_156, limits: [{ token, limit: 50_000_000n }], type: "secp256k1" },
};
const direct = (args: readonly unknown[]): SponsorCandidate => ({
  from: user,
  chainId: 31337,
  gas: 500_000n,
  calls: [
    { to: ACCOUNT_KEYCHAIN_ADDRESS, value: 0n, data: encodeFunctionData({ abi: Abis.accountKeychain, functionName: "authorizeKey", args } as never) as Hex },
  ],
});

describe("checkSponsorship", () => {
  it("sponsors viem's key authorization of the agent key", () => expect(checkSponsorship(viemStyle, e)).toBeNull());
  it("sponsors a direct authorizeKey call (T0 and T4 forms)", () => {
    expect(checkSponsorship(direct([agentKey, 0, 1_795_332_156n, true, [{ token, amount: 1n }]]), e)).toBeNull();
    expect(
      checkSponsorship(
        direct([
          agentKey,
          0,
          { expiry: 1_795_332_156n, enforceLimits: true, limits: [{ token, amount: 5n, period: 0n }], allowAnyCalls: true, allowedCalls: [] },
        ]),
        e,
      ),
    ).toBeNull();
  });
  it.each([
    ["another key", { ...viemStyle, keyAuthorization: { ...viemStyle.keyAuthorization!, address: user } }, /another key/],
    ["a p256 key", { ...viemStyle, keyAuthorization: { ...viemStyle.keyAuthorization!, type: "p256" } }, /secp256k1/],
    ["a longer expiry", { ...viemStyle, keyAuthorization: { ...viemStyle.keyAuthorization!, expiry: 1_795_332_157 } }, /outlives/],
    ["no expiry", { ...viemStyle, keyAuthorization: { ...viemStyle.keyAuthorization!, expiry: null } }, /no expiry/],
    ["no limits", { ...viemStyle, keyAuthorization: { ...viemStyle.keyAuthorization!, limits: [] } }, /no spending limit/],
    ["a higher limit", { ...viemStyle, keyAuthorization: { ...viemStyle.keyAuthorization!, limits: [{ token, limit: 50_000_001n }] } }, /spend cap/],
    ["another token", { ...viemStyle, keyAuthorization: { ...viemStyle.keyAuthorization!, limits: [{ token: agentKey, limit: 1n }] } }, /token/],
    ["another chain", { ...viemStyle, keyAuthorization: { ...viemStyle.keyAuthorization!, chainId: 1n } }, /chain/],
    ["a piggy-backed transfer", { ...viemStyle, calls: [{ to: token, data: "0xa9059cbb", value: 0n }] }, /no other calls/],
    ["too much gas", { ...viemStyle, gas: 3_000_001n }, /gas limit/],
    ["no gas", { ...viemStyle, gas: undefined }, /gas/],
    ["a plain transfer", { from: user, gas: 100_000n, calls: [{ to: token, data: "0xa9059cbb" }] }, /not an authorization/],
    ["two calls", { from: user, gas: 100_000n, calls: [{ to: ACCOUNT_KEYCHAIN_ADDRESS }, { to: ACCOUNT_KEYCHAIN_ADDRESS }] }, /not an authorization/],
  ] as [string, SponsorCandidate, RegExp][])("refuses %s", (_name, tx, reason) => expect(checkSponsorship(tx, e)).toMatch(reason));
  it("refuses direct calls that authorize another key, revoke, or skip limits", () => {
    expect(checkSponsorship(direct([user, 0, 1_795_332_156n, true, [{ token, amount: 1n }]]), e)).toMatch(/another key/);
    expect(checkSponsorship(direct([agentKey, 0, 1_795_332_156n, false, []]), e)).toMatch(/enforce limits/);
    expect(checkSponsorship(direct([agentKey, 1, 1_795_332_156n, true, [{ token, amount: 1n }]]), e)).toMatch(/secp256k1/);
    const revoke = {
      from: user,
      gas: 100_000n,
      calls: [{ to: ACCOUNT_KEYCHAIN_ADDRESS, data: encodeFunctionData({ abi: Abis.accountKeychain, functionName: "revokeKey", args: [agentKey] }) }],
    };
    expect(checkSponsorship(revoke, e)).toMatch(/not sponsored/);
    expect(checkSponsorship({ ...direct([agentKey, 0, 1n, true, []]), calls: [{ to: ACCOUNT_KEYCHAIN_ADDRESS, data: "0xdeadbeef" }] }, e)).toMatch(
      /does not decode/,
    );
  });
});

describe("checkSponsorship: every refusal of the policy", () => {
  const ka = viemStyle.keyAuthorization!;
  const withKa = (patch: Partial<NonNullable<SponsorCandidate["keyAuthorization"]>>): SponsorCandidate => ({
    ...viemStyle,
    keyAuthorization: { ...ka, ...patch },
  });
  const limit = [{ token, amount: 50_000_000n }];
  const t0 = (expiry: bigint, enforce: boolean, limits: readonly unknown[], key = agentKey, type = 0) => direct([key, type, expiry, enforce, limits]);
  const t4 = (cfg: { expiry?: bigint; enforceLimits?: boolean; limits?: readonly unknown[] }) =>
    direct([
      agentKey,
      0,
      { expiry: 1_795_332_156n, enforceLimits: true, limits: [{ token, amount: 5n, period: 0n }], allowAnyCalls: true, allowedCalls: [], ...cfg },
    ]);

  it("checks the transaction's chain id against the session's", () => {
    expect(checkSponsorship({ ...viemStyle, chainId: 1 }, e)).toBe("wrong chain");
    expect(checkSponsorship({ ...t0(1_795_332_156n, true, limit), chainId: 4217n }, e)).toBe("wrong chain");
    expect(checkSponsorship({ ...viemStyle, chainId: "31337" }, e)).toBeNull();
    expect(checkSponsorship({ ...viemStyle, chainId: 31337n }, e)).toBeNull();
  });
  it("reads the gas limit as a positive integer at most maxGas", () => {
    expect(checkSponsorship({ ...viemStyle, gas: 0n }, e)).toBe("the transaction has no gas limit");
    expect(checkSponsorship({ ...viemStyle, gas: -1 }, e)).toBe("the transaction has no gas limit");
    expect(checkSponsorship({ ...viemStyle, gas: "lots" }, e)).toBe("the transaction has no gas limit");
    expect(checkSponsorship({ ...viemStyle, gas: null }, e)).toBe("the transaction has no gas limit");
    expect(checkSponsorship({ ...viemStyle, gas: 3_000_000n }, e)).toBeNull();
    expect(checkSponsorship({ ...viemStyle, gas: "3000000" }, e)).toBeNull();
    expect(checkSponsorship({ ...viemStyle, gas: 3_000_001 }, e)).toBe("the gas limit 3000001 is above 3000000");
  });
  it("refuses a key authorization that names another account than the sender, and compares addresses case-insensitively", () => {
    expect(checkSponsorship(withKa({ account: agentKey }), e)).toBe("the key authorization names another account");
    expect(checkSponsorship(withKa({ account: user.toUpperCase().replace("0X", "0x") }), e)).toBeNull();
    expect(checkSponsorship(withKa({ address: agentKey.toUpperCase().replace("0X", "0x") }), e)).toBeNull();
    expect(checkSponsorship({ ...withKa({ account: agentKey }), from: undefined }, e)).toBeNull(); // nothing to compare with yet
  });
  it("accepts the secp256k1 key type in each spelling and refuses others", () => {
    for (const type of ["secp256k1", 0, "0"] as const) expect(checkSponsorship(withKa({ type }), e)).toBeNull();
    for (const type of [1, "1", "webAuthn", null, undefined]) expect(checkSponsorship(withKa({ type }), e)).toBe("the agent key must be a secp256k1 key");
  });
  it("accepts a key authorization for this chain or for any chain (0), refuses another chain", () => {
    expect(checkSponsorship(withKa({ chainId: 0n }), e)).toBeNull();
    expect(checkSponsorship(withKa({ chainId: null }), e)).toBeNull();
    expect(checkSponsorship(withKa({ chainId: 4217 }), e)).toBe("the key authorization is for another chain");
  });
  it("requires a positive expiry no later than the session's", () => {
    expect(checkSponsorship(withKa({ expiry: 0 }), e)).toBe("the key authorization has no expiry");
    expect(checkSponsorship(withKa({ expiry: -5 }), e)).toBe("the key authorization has no expiry");
    expect(checkSponsorship(withKa({ expiry: 1 }), e)).toBeNull();
    expect(checkSponsorship(withKa({ expiry: 1_795_332_156 }), e)).toBeNull();
    expect(checkSponsorship(withKa({ expiry: 1_795_332_157n }), e)).toBe("the key authorization outlives the session");
  });
  it("requires every limit to be on the session's token and at most its spend cap (limit or amount)", () => {
    expect(checkSponsorship(withKa({ limits: null }), e)).toBe("the key authorization has no spending limit");
    expect(checkSponsorship(withKa({ limits: [{ token, amount: 50_000_000n }] }), e)).toBeNull();
    expect(checkSponsorship(withKa({ limits: [{ token, amount: 50_000_001n }] }), e)).toBe("the key authorization's limit exceeds the session's spend cap");
    expect(checkSponsorship(withKa({ limits: [{ token }] }), e)).toBe("the key authorization's limit exceeds the session's spend cap");
    expect(
      checkSponsorship(
        withKa({
          limits: [
            { token, limit: 1n },
            { token: user, limit: 1n },
          ],
        }),
        e,
      ),
    ).toBe(`the key authorization names token ${user}, not the session's token`);
    expect(
      checkSponsorship(
        withKa({
          limits: [
            { token, limit: 1n },
            { token, limit: 50_000_001n },
          ],
        }),
        e,
      ),
    ).toMatch(/spend cap/);
  });
  it("allows only empty no-op calls beside a key authorization", () => {
    expect(checkSponsorship({ ...viemStyle, calls: [] }, e)).toBeNull();
    expect(checkSponsorship({ ...viemStyle, calls: null }, e)).toBeNull();
    expect(checkSponsorship({ ...viemStyle, calls: [{ to: null, data: null, value: null }, { input: "0x" }, { data: "" }] }, e)).toBeNull();
    expect(checkSponsorship({ ...viemStyle, calls: [{ data: null, input: null }] }, e)).toBeNull();
    const refused = "only the key authorization is sponsored (no other calls)";
    expect(checkSponsorship({ ...viemStyle, calls: [{ to: "0x0000000000000000000000000000000000000000", value: 1n, data: "0x" }] }, e)).toBe(refused);
    expect(checkSponsorship({ ...viemStyle, calls: [{ to: "0x0000000000000000000000000000000000000000", data: "0x01" }] }, e)).toBe(refused);
    expect(checkSponsorship({ ...viemStyle, calls: [{ to: "0x0000000000000000000000000000000000000000", input: "0x01" }] }, e)).toBe(refused);
    expect(checkSponsorship({ ...viemStyle, calls: [{ data: "0x" }, { to: user }] }, e)).toBe(refused);
  });
  it("refuses a direct T0 authorizeKey without its limit or expiry checked", () => {
    expect(checkSponsorship(t0(1_795_332_156n, true, limit), e)).toBeNull();
    expect(checkSponsorship(t0(1_795_332_156n, false, limit), e)).toBe("the authorization must enforce limits");
    expect(checkSponsorship(t0(0n, true, limit), e)).toBe("the key authorization has no expiry");
    expect(checkSponsorship(t0(1_795_332_157n, true, limit), e)).toBe("the key authorization outlives the session");
    expect(checkSponsorship(t0(1_795_332_156n, true, []), e)).toBe("the key authorization has no spending limit");
    expect(checkSponsorship(t0(1_795_332_156n, true, [{ token, amount: 50_000_001n }]), e)).toMatch(/spend cap/);
    expect(checkSponsorship(t0(1_795_332_156n, true, [{ token: user, amount: 1n }]), e)).toMatch(/names token/);
    expect(checkSponsorship(t0(1_795_332_156n, true, limit, agentKey, 2), e)).toBe("the agent key must be a secp256k1 key");
  });
  it("refuses a direct T4 authorizeKey without its limit or expiry checked", () => {
    expect(checkSponsorship(t4({}), e)).toBeNull();
    expect(checkSponsorship(t4({ enforceLimits: false }), e)).toBe("the authorization must enforce limits");
    expect(checkSponsorship(t4({ expiry: 0n }), e)).toBe("the key authorization has no expiry");
    expect(checkSponsorship(t4({ expiry: 1_795_332_157n }), e)).toBe("the key authorization outlives the session");
    expect(checkSponsorship(t4({ limits: [] }), e)).toBe("the key authorization has no spending limit");
    expect(checkSponsorship(t4({ limits: [{ token, amount: 50_000_001n, period: 0n }] }), e)).toMatch(/spend cap/);
    expect(checkSponsorship(t4({ limits: [{ token: user, amount: 1n, period: 0n }] }), e)).toMatch(/names token/);
  });
  it("refuses a direct call that carries value, goes elsewhere, or comes with a second call", () => {
    const ok = t0(1_795_332_156n, true, limit);
    const call = ok.calls![0]!;
    expect(checkSponsorship({ ...ok, calls: [{ ...call, value: 1n }] }, e)).toBe("the authorization call carries value");
    expect(checkSponsorship({ ...ok, calls: [{ ...call, value: null }] }, e)).toBeNull();
    expect(checkSponsorship({ ...ok, calls: [{ ...call, to: ACCOUNT_KEYCHAIN_ADDRESS.toUpperCase().replace("0X", "0x") }] }, e)).toBeNull();
    expect(checkSponsorship({ ...ok, calls: [{ to: ACCOUNT_KEYCHAIN_ADDRESS, input: call.data }] }, e)).toBeNull();
    expect(checkSponsorship({ ...ok, calls: [{ ...call, to: token }] }, e)).toBe("the transaction is not an authorization of the agent key");
    expect(checkSponsorship({ ...ok, calls: [{ ...call, to: null }] }, e)).toBe("the transaction is not an authorization of the agent key");
    expect(checkSponsorship({ ...ok, calls: [call, { to: "0x0000000000000000000000000000000000000000", data: "0x" }] }, e)).toBe(
      "the transaction is not an authorization of the agent key",
    );
    expect(checkSponsorship({ ...ok, calls: [] }, e)).toBe("the transaction is not an authorization of the agent key");
    expect(checkSponsorship({ ...ok, calls: undefined }, e)).toBe("the transaction is not an authorization of the agent key");
    expect(checkSponsorship({ ...ok, calls: [{ to: ACCOUNT_KEYCHAIN_ADDRESS }] }, e)).toBe("the call to the AccountKeychain does not decode");
  });
});
