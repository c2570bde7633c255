/**
 * `npm run bench`: speed and memory targets, each measured as a ratio against a baseline taken in
 * the same run. No capability has a target yet; later issues add their benchmarks here.
 */
const benchmarks: Array<{ name: string; run: () => Promise<string> }> = [];

if (benchmarks.length === 0) {
  console.log('No benchmarks are defined yet.');
}
for (const benchmark of benchmarks) {
  console.log(`${benchmark.name}: ${await benchmark.run()}`);
}
