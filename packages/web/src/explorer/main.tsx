import "uplot/dist/uPlot.min.css";
import "./styles.css";
import { render } from "preact";
import { App } from "./App.tsx";
import { startRouter } from "../shared/router.tsx";
import { loadTokens, provideTokensFetcher } from "../shared/tokens.ts";
import { fetchTokens } from "./fetchTokens.ts";

provideTokensFetcher(fetchTokens); // before anything asks: loadTokens below, the pages, the owner console

// Amounts are written in their token's decimals: other pages wait for the allowlist (boot.ts asked for it while this
// bundle loaded; at most 2 s); the dashboard's one query brings it along.
const ready = location.pathname === "/" ? Promise.resolve() : Promise.race([loadTokens(), new Promise((r) => setTimeout(r, 2000))]);
void ready.then(() => {
  startRouter();
  const root = document.getElementById("root")!;
  root.textContent = "";
  render(<App />, root);
});
