import { readFileSync } from "node:fs";

/** CPU seconds (user + system) a local process has used so far (/proc/<pid>/stat; 100 ticks per second on Linux). */
export function readProcessCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime (fields 14 and 15 of stat)
}
