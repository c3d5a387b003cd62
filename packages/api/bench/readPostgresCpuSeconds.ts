import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** utime, stime, cutime, cstime of /proc/<pid>/stat in seconds (100 ticks per second on Linux), and the parent pid. */
function stat(pid: number): { ppid: number; own: number; reaped: number } | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null; // exited meanwhile
  }
  const f = text.slice(text.lastIndexOf(")") + 2).split(" "); // f[0] = state (field 3 of stat)
  return { ppid: Number(f[1]), own: (Number(f[11]) + Number(f[12])) / 100, reaped: (Number(f[13]) + Number(f[14])) / 100 };
}

/**
 * CPU seconds (user + system) a local PostgreSQL server has used so far: its postmaster (pid from the data directory's
 * `postmaster.pid`) and every child (backends, walsender/walreceiver, startup, checkpointer…), plus what exited
 * children used (the postmaster's cutime/cstime), so a backend that ends between two readings is not lost.
 */
export function readPostgresCpuSeconds(dataDir: string): number {
  const pid = Number(readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  const postmaster = stat(pid);
  if (!postmaster) throw new Error(`no PostgreSQL process ${pid} (from ${dataDir}/postmaster.pid)`);
  let seconds = postmaster.own + postmaster.reaped;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const child = stat(Number(entry));
    if (child?.ppid === pid) seconds += child.own + child.reaped;
  }
  return seconds;
}
