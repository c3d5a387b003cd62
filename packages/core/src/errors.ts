/** Base of the typed errors thrown by core: a short message for humans, a machine code, a cause. */
export class LedgerError extends Error {
  readonly shortMessage: string;
  readonly code: string;
  constructor(code: string, shortMessage: string, options: { cause?: unknown; details?: string } = {}) {
    super(options.details ? `${shortMessage}\n\nDetails: ${options.details}` : shortMessage, { cause: options.cause });
    this.name = "LedgerError";
    this.code = code;
    this.shortMessage = shortMessage;
  }
}

export class InvalidAddressError extends LedgerError {
  constructor(value: unknown) {
    super("invalid_address", `"${String(value).slice(0, 80)}" is not an address (0x followed by 40 hex characters)`);
    this.name = "InvalidAddressError";
  }
}

export class InvalidAmountError extends LedgerError {
  constructor(value: unknown, reason: string) {
    super("invalid_amount", `"${String(value).slice(0, 80)}" is not a valid amount: ${reason}`);
    this.name = "InvalidAmountError";
  }
}

export class UnknownMethodologyError extends LedgerError {
  constructor(version: string, known: readonly string[]) {
    super("unknown_methodology", `unknown methodology version "${version}" (known: ${known.join(", ")})`);
    this.name = "UnknownMethodologyError";
  }
}

export class InvalidRegistryError extends LedgerError {
  readonly problems: readonly string[];
  constructor(problems: string[]) {
    super("invalid_registry", `registry file is invalid: ${problems.join("; ")}`);
    this.name = "InvalidRegistryError";
    this.problems = problems;
  }
}
