import { DevnetError } from './errors.ts'

export type RpcCall = { method: string; params?: unknown[] }
export type RpcResult = { result?: unknown; error?: { code: number; message: string } }

/** Plain JSON-RPC over fetch; an array of calls is sent as one JSON-RPC batch (results in call order). */
export async function rpcRequest(url: string, calls: RpcCall[], timeoutMs = 30_000): Promise<RpcResult[]> {
  const body = calls.map((c, id) => ({ jsonrpc: '2.0', id, method: c.method, params: c.params ?? [] }))
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  })
  if (!res.ok) throw new DevnetError(`RPC ${url} answered HTTP ${res.status}`)
  const out = (await res.json()) as (RpcResult & { id: number })[]
  if (!Array.isArray(out)) throw new DevnetError(`RPC ${url} did not answer the batch: ${JSON.stringify(out).slice(0, 200)}`)
  const byId: RpcResult[] = new Array(calls.length)
  for (const r of out) byId[r.id] = r
  return byId
}
