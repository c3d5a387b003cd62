import "uplot/dist/uPlot.min.css";
import "./styles.css";
import { render } from "preact";
import { App } from "./App.tsx";

render(<App />, document.getElementById("root")!);
