// Preloaded (node --import) into a process the mirror bench runs: at exit, writes the process's
// peak resident memory in kilobytes (process.resourceUsage().maxRSS) to the file named by
// FIRMWATCH_BENCH_PEAK_FILE, so the figure is the process's own, measured inside it.
import { writeFileSync } from 'node:fs';

const target = process.env.FIRMWATCH_BENCH_PEAK_FILE;
if (target) {
  process.on('exit', () => writeFileSync(target, String(process.resourceUsage().maxRSS)));
}
