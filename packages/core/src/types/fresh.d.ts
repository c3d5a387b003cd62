// fresh (jshttp, express's conditional-GET check) ships no types; the one function core uses (http/isNotModified.ts).
declare module "fresh" {
  function fresh(requestHeaders: Record<string, string | string[] | undefined>, responseHeaders: Record<string, string | undefined>): boolean;
  export default fresh;
}
