import type { IncomingMessage } from "node:http";

/**
 * Two `Authorization` headers on one request are refused (400 `duplicate_authorization`), never resolved: Node keeps
 * the first one in `req.headers` and drops the rest, while a proxy or gateway in front of us may check, log or forward
 * the last one, so the two would act on different credentials. `req.headersDistinct` still holds every one sent.
 * `Cookie` is not concerned: repeated Cookie headers are one list split in pieces (HTTP/2 splits it on purpose,
 * RFC 9113 §8.2.3), which Node and every proxy join in order with "; " — no party sees another credential.
 * Returns null when the request may go on, else why not. Called once for every request, before routing (buildApp).
 */
export function checkDuplicateAuthorization(req: Pick<IncomingMessage, "headersDistinct">): string | null {
  const sent = req.headersDistinct.authorization?.length ?? 0;
  if (sent < 2) return null;
  return `the request carries ${sent} Authorization headers: send exactly one`;
}
