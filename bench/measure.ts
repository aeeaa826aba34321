import { performance } from "node:perf_hooks";

export type Measurement = { runs: number; medianMs: number; p90Ms: number };

/** Runs `fn` after a warm-up until `minMs` have passed (at least `minRuns` times); returns the median. */
export function measure(fn: () => void, options: { minRuns?: number; minMs?: number } = {}): Measurement {
  const minRuns = options.minRuns ?? 20;
  const minMs = options.minMs ?? 500;
  for (let i = 0; i < 3; i++) fn();
  const times: number[] = [];
  const start = performance.now();
  while (times.length < minRuns || performance.now() - start < minMs) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
    if (times.length >= 10_000) break;
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { runs: times.length, medianMs: at(0.5), p90Ms: at(0.9) };
}

export function formatMs(ms: number): string {
  return ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`;
}
