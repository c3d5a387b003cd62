/** A connection URL fit for a log line: its password (if any) replaced by `***`; an unparsable one is not shown at all. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparsable URL)";
  }
}
