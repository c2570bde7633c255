// Preloaded (node --import) into a process the mirror bench runs: at exit, writes the process's
// peak resident memory in kilobytes to the file named by FIRMWATCH_BENCH_PEAK_FILE, measured
// inside it. On Linux that is VmHWM, the peak of this process's own memory since it started:
// process.resourceUsage().maxRSS also counts the parent's memory copied at fork (a bench that had
// generated a million zip entries made a child's maxRSS read 3.4 GB). Elsewhere, maxRSS.
import { readFileSync, writeFileSync } from 'node:fs';

function peakKilobytes() {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]);
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS;
}

const target = process.env.FIRMWATCH_BENCH_PEAK_FILE;
if (target) {
  process.on('exit', () => writeFileSync(target, String(peakKilobytes())));
}
