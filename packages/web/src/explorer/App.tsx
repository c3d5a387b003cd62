export function App() { return <main><h1>Agent Ledger</h1></main>; }
