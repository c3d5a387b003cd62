/** Short typed errors of the devnet package. */
export class DevnetError extends Error {
  override name = "DevnetError";
}
export class AnvilStartError extends DevnetError {
  override name = "AnvilStartError";
}
export class TimeoutError extends DevnetError {
  override name = "TimeoutError";
}
export class TxFailedError extends DevnetError {
  override name = "TxFailedError";
  constructor(
    message: string,
    readonly hash?: string,
  ) {
    super(message);
  }
}
