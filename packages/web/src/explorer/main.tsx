import "uplot/dist/uPlot.min.css";
import "./styles.css";
import { render } from "preact";
import { App } from "./App.tsx";
import { startRouter } from "./router.tsx";

startRouter();
const root = document.getElementById("root")!;
root.textContent = "";
render(<App />, root);
