// Giving the event loop back in the middle of long work (fan-out slices, social batches, long answers serialised in
// pieces, live re-executions taking turns): what was queued meanwhile runs before the work goes on.

/** Lets other work of the event loop run (I/O callbacks and timers due), then resolves. */
export const yieldToLoop = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));
