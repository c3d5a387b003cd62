import type { IncomingMessage } from "node:http";

/** Reads the whole body (its length was checked by acceptsJsonLane). */
export function readBodyBuffer(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    let ended = false;
    req.on("end", () => {
      ended = true;
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
    req.on("error", reject);
    req.on("close", () => {
      if (!ended) reject(new Error("the client went away before sending the whole body"));
    });
  });
}
