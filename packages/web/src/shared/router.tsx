// A tiny router: the URL is the state. `navigate` pushes a history entry; one document-level click handler turns
// same-origin <a href> clicks into navigations (modifier keys and new tabs keep the browser's behaviour).
import { useEffect, useState } from "preact/hooks";
import { createStore } from "./store.ts";

export const location$ = createStore<URL>(new URL(window.location.href));

export function navigate(href: string, options: { replace?: boolean } = {}) {
  const url = new URL(href, window.location.href);
  if (options.replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  location$.set(url);
  if (!options.replace) window.scrollTo(0, 0);
}

export function startRouter() {
  window.addEventListener("popstate", () => location$.set(new URL(window.location.href)));
  document.addEventListener("click", (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = (e.target as Element | null)?.closest?.("a");
    if (!a || a.target || a.hasAttribute("download") || a.dataset.external !== undefined) return;
    const url = new URL(a.href, window.location.href);
    if (url.origin !== window.location.origin || url.pathname.startsWith("/api") || url.pathname === "/graphql") return;
    e.preventDefault();
    navigate(url.href);
  });
}

export function useLocation(): URL {
  const [url, setUrl] = useState(location$.get());
  useEffect(() => location$.subscribe(setUrl), []);
  return url;
}
