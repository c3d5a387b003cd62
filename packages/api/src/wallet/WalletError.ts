import { ApiError } from "../errors.ts";

/** A client-visible error of /api/wallet/*: the ApiError of the wallet surface (statuses: errors.ts, ERROR_STATUS). */
export class WalletError extends ApiError {
  override name = "WalletError";
}
