/** One compiled template: its literal segments (null where a `:param` or a trailing `*` stands) and the param names. */
interface Compiled<R> {
  route: R;
  segments: (string | null)[];
  names: (string | null)[];
  /** The template ends in `/*`: it matches that prefix and anything below it (pages). */
  prefix: boolean;
}

export interface RouteMatch<R> {
  route: R;
  params: Record<string, string>;
}

/** Decodes one path segment; a malformed escape is kept verbatim (it then fails the handler's own validation). */
function decodeSegment(segment: string): string {
  if (!segment.includes("%")) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The one matcher of the app, compiled once at mount: static templates in a Map (one lookup), parameterized ones
 * grouped by segment count and compared segment by segment (no RegExp, nothing built per request). A static template
 * wins over parameterized ones (`/api/wallet/sessions/revoke-all` is not the session `revoke-all`); several
 * parameterized templates of one path are all returned (one per method). A trailing slash is ignored, except by
 * routes marked `exact`; a template ending in `/*` matches what nothing else does below its prefix. `match` returns
 * every route of the matched template(s), with decoded parameters, or an empty list.
 */
export function compileRoutes<R extends { path: string; exact?: boolean }>(routes: readonly R[]) {
  const statics = new Map<string, RouteMatch<R>[]>();
  const byLength = new Map<number, Compiled<R>[]>();
  const prefixes: Compiled<R>[] = [];
  for (const route of routes) {
    const parts = route.path.split("/");
    const prefix = parts[parts.length - 1] === "*";
    if (prefix) parts.pop();
    const compiled: Compiled<R> = {
      route,
      segments: parts.map((p) => (p.startsWith(":") ? null : p)),
      names: parts.map((p) => (p.startsWith(":") ? p.slice(1) : null)),
      prefix,
    };
    if (prefix) prefixes.push(compiled);
    else if (compiled.names.every((n) => n === null)) {
      const list = statics.get(route.path) ?? [];
      list.push({ route, params: {} });
      statics.set(route.path, list);
    } else {
      const list = byLength.get(parts.length) ?? [];
      list.push(compiled);
      byLength.set(parts.length, list);
    }
  }
  const NONE: RouteMatch<R>[] = [];

  return {
    routes,
    match(pathname: string): RouteMatch<R>[] {
      const path = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
      const exact = statics.get(path);
      if (exact) {
        if (path === pathname) return exact;
        const slashed = exact.filter((m) => !m.route.exact); // `/healthz/` is not /healthz
        if (slashed.length > 0) return slashed;
      }
      const segments = path.split("/");
      const candidates = byLength.get(segments.length);
      let found: RouteMatch<R>[] | undefined;
      if (candidates) {
        for (const c of candidates) {
          let ok = true;
          for (let i = 0; i < segments.length; i++) {
            const literal = c.segments[i];
            const s = segments[i]!;
            if (literal === null ? s === "" : literal !== s) {
              ok = false;
              break;
            }
          }
          if (!ok) continue;
          const params: Record<string, string> = {};
          for (let i = 0; i < segments.length; i++) if (c.names[i] !== null) params[c.names[i]!] = decodeSegment(segments[i]!);
          (found ??= []).push({ route: c.route, params });
        }
      }
      if (found) return found;
      for (const c of prefixes) {
        if (segments.length < c.segments.length) continue;
        let ok = true;
        for (let i = 0; i < c.segments.length && ok; i++) if (c.segments[i] !== null && c.segments[i] !== segments[i]) ok = false;
        if (ok) (found ??= []).push({ route: c.route, params: {} });
      }
      return found ?? NONE;
    },
  };
}

export type CompiledRoutes<R extends { path: string; exact?: boolean }> = ReturnType<typeof compileRoutes<R>>;
