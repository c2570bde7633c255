/**
 * Waits until `condition` holds, checking every `everyMs`; fails with what it waited for after
 * `timeoutMs`. For tests that watch real processes and servers settle.
 */
export async function until(
  condition: () => Promise<boolean> | boolean,
  what: string,
  { timeoutMs = 10_000, everyMs = 25 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
