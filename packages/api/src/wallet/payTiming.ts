/** Timings of one payment (ms): everything the server does, and the part spent waiting for the chain. */
export interface PayTiming {
  totalMs: number;
  chainMs: number;
  /**
   * Where the rest went: body parsing; the session's signer (cached per bearer) + key decryption + signing; bearer
   * check + cap reservation + payment row with its transaction hash (one statement); ledger write after the receipt.
   */
  stages?: { authMs: number; reserveMs: number; signMs: number; finishMs: number };
}
