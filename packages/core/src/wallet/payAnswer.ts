// The bodies of POST /api/wallet/pay as its clients (CLI, MCP server) read them: types only, no run-time code.
// The API's OpenAPI document (PaymentSent, PaymentPending) is the contract; docs/wallet.md explains each field.

/** 200: the transaction was accepted by the chain and the payment recorded `sent`. */
export interface PaySentAnswer {
  tx_hash: string;
  explorer_url: string | null;
  from: string;
  to: string;
  amount_wei: string;
  memo: string | null;
  token: string;
  spend_used_wei_after: string;
  spend_cap_wei: string;
}

/** 202 `payment_pending`: the outcome is not known yet (the reservation holds until the receipt or `valid_before`). */
export interface PayPendingAnswer {
  status: "pending";
  code: "payment_pending";
  message: string;
  tx_hash: string | null;
  explorer_url: string | null;
  valid_before: string | null;
  from: string;
  to: string;
  amount_wei: string;
  memo: string | null;
  token: string;
}
