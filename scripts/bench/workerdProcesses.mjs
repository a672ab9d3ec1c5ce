/**
 * What the benchmarks read of the workerd processes this node process started, from `/proc`:
 * their resident memory, and the CPU time of all their threads. The client (this process) is
 * never counted.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** The sum of `read(pid)` over the workerd children of this process; one that ended meanwhile counts nothing. */
function sumOverWorkerd(read) {
  const pids = execFileSync("pgrep", ["-P", String(process.pid)], { encoding: "utf8" }).split("\n").filter(Boolean);
  let total = 0;
  for (const pid of pids) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("workerd")) total += read(pid);
    } catch {
      // the process (or a thread) ended between listing and reading
    }
  }
  return total;
}

/** RSS in MiB. */
export function workerdRssMiB() {
  return sumOverWorkerd((pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1])) / 1024;
}

/** Nanoseconds on CPU, all threads (`/proc/<pid>/task/<tid>/schedstat`). */
export function workerdCpuNs() {
  return sumOverWorkerd((pid) => {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    return ns;
  });
}
