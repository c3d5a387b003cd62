/** The fields of a ledger row the tables show. */
export const ROW_FIELDS = "id ts kind agentId agentLabel counterpartyAddress counterpartyLabel amountWei tokenAddress txHash routedToLabel routedFingerprint";
