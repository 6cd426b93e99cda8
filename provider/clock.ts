/** Time, as every wait of the provider sees it: one seam, so that a test can run a wait of minutes at once. */
export interface Clock {
    now(): number;
    sleep(ms: number): Promise<void>;
}

/** Waits `ms` on the clock, or less: a cancelled deployment (`cancelled` aborted) ends every wait at once. */
export async function pause(clock: Clock, ms: number, cancelled?: AbortSignal): Promise<void> {
    if (!cancelled) return clock.sleep(ms);
    if (cancelled.aborted) return;
    let wake = () => {};
    const woken = new Promise<void>((resolve) => (wake = resolve));
    cancelled.addEventListener("abort", wake, { once: true });
    try {
        await Promise.race([clock.sleep(ms), woken]);
    } finally {
        cancelled.removeEventListener("abort", wake);
    }
}

export const systemClock: Clock = {
    now: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))),
};
