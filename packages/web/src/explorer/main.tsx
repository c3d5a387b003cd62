import "uplot/dist/uPlot.min.css";
import "./styles.css";
import { render } from "preact";
import { App } from "./App.tsx";
import { prefetchDashboard } from "./pages/Dashboard.tsx";
import { startRouter } from "./router.tsx";

prefetchDashboard(new URL(location.href));

startRouter();
const root = document.getElementById("root")!;
root.textContent = "";
render(<App />, root);
