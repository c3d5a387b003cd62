// Writes registry/demo.json from the deterministic demo keys. Usage: npx tsx packages/devnet/scripts/writeDemoRegistry.ts
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { buildDemoRegistry } from "../src/demo/buildDemoRegistry.ts";

const out = fileURLToPath(new URL("../../../registry/demo.json", import.meta.url));
writeFileSync(out, `${JSON.stringify(buildDemoRegistry(), null, 2)}\n`);
console.log(`wrote ${out}`);
