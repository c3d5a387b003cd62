import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const ARCH: Record<string, string> = { x64: "amd64", arm64: "arm64" };

/**
 * Path of the anvil binary: the `@foundry-rs/anvil-<platform>-<arch>` package (platform linux/darwin/win32,
 * arch x64→amd64, arm64), resolved from here or from `@foundry-rs/anvil`; else `ANVIL_BIN`; else `anvil` on PATH.
 */
export function resolveAnvilBinary(platform: string = process.platform, arch: string = process.arch): string {
  if (process.env.ANVIL_BIN) return process.env.ANVIL_BIN;
  const exe = platform === "win32" ? "anvil.exe" : "anvil";
  const pkg = `@foundry-rs/anvil-${platform}-${ARCH[arch] ?? arch}`;
  const require = createRequire(import.meta.url);
  const bases = [require];
  try {
    bases.push(createRequire(require.resolve("@foundry-rs/anvil/package.json")));
  } catch {
    // wrapper package not installed: only the platform package / PATH remain
  }
  for (const req of bases) {
    try {
      const bin = join(dirname(req.resolve(`${pkg}/package.json`)), "bin", exe);
      if (existsSync(bin)) return bin;
    } catch {
      // not resolvable from this base
    }
  }
  return exe;
}
