/** The first of `offered` (default: brotli, then gzip) the client accepts, else none (`q=0` refuses a coding). */
export function negotiateEncoding<C extends "br" | "gzip">(
  acceptEncoding: string | string[] | undefined,
  offered: readonly C[] = ["br", "gzip"] as C[],
): C | null {
  const header = Array.isArray(acceptEncoding) ? acceptEncoding.join(",") : (acceptEncoding ?? "");
  const accepted = new Map<string, number>();
  for (const part of header.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    accepted.set(name, q ? Number(q.slice(2)) || 0 : 1);
  }
  const ok = (coding: string) => (accepted.get(coding) ?? accepted.get("*") ?? 0) > 0;
  return offered.find(ok) ?? null;
}
