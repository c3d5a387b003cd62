import { spawn } from "node:child_process";

/**
 * Opens `url` with the platform's opener (`open` on macOS, `xdg-open` on Linux/BSD with a display, `start` on
 * Windows). Never throws and never waits: returns false when there is nothing to try.
 */
export function openBrowser(url: string, env: Record<string, string | undefined> = process.env, platform: NodeJS.Platform = process.platform): boolean {
  if (env.AGENT_LEDGER_NO_BROWSER === "1") return false;
  let command: string;
  let args: string[];
  if (platform === "darwin") [command, args] = ["open", [url]];
  else if (platform === "win32") [command, args] = ["cmd", ["/c", "start", '""', url.replace(/&/g, "^&")]];
  else {
    if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return false; // no graphical session (ssh, CI): just print the URL
    [command, args] = ["xdg-open", [url]];
  }
  try {
    const child = spawn(command, args, { detached: true, stdio: "ignore", windowsHide: true });
    child.on("error", () => {}); // opener missing: the URL is printed anyway
    child.unref();
    return true;
  } catch {
    return false;
  }
}
