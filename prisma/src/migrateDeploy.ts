import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { existsSync } from "node:fs";
import path from "node:path";

// The package directory (prisma.config.ts, migrations/): one level up from src/, two from the build's dist/src/.
const packageDir = [path.resolve(import.meta.dirname, ".."), path.resolve(import.meta.dirname, "..", "..")].find((dir) => existsSync(path.join(dir, "prisma.config.ts")))!;
const prismaCli = path.join(path.dirname(createRequire(import.meta.url).resolve("prisma/package.json")), "build/index.js");

/** Runs `prisma migrate deploy` (offline engine stand-in) against `connectionString`. */
export function migrateDeploy(connectionString: string, options: { quiet?: boolean } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [prismaCli, "migrate", "deploy"], {
      cwd: packageDir,
      env: { ...process.env, DATABASE_URL: connectionString, PRISMA_HIDE_UPDATE_MESSAGE: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0) {
        if (!options.quiet) process.stdout.write(output.split("\n").filter((l) => /applied|No pending/i.test(l)).join("\n") + "\n");
        resolve();
      } else reject(new Error(`prisma migrate deploy failed (exit ${code}):\n${output}`));
    });
  });
}
