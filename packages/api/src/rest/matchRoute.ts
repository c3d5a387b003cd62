import type { Route } from "./routes.ts";

export type RouteMatch = { route: Route; params: Record<string, string> };

/** Decodes one path segment; a malformed escape is kept verbatim (it then fails the handler's own validation). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Routes whose template matches `pathname` (a trailing slash is ignored), with their decoded parameters. */
export function matchRoutes(routes: readonly Route[], pathname: string): RouteMatch[] {
  const segments = (pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname).split("/");
  const matches: RouteMatch[] = [];
  for (const route of routes) {
    const template = route.path.split("/");
    if (template.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < template.length && ok; i++) {
      const t = template[i]!;
      const s = segments[i]!;
      if (t.startsWith(":")) {
        if (s === "") ok = false;
        else params[t.slice(1)] = decodeSegment(s);
      } else if (t !== s) ok = false;
    }
    if (ok) matches.push({ route, params });
  }
  return matches;
}
