/**
 * Time, as every wait of the provider sees it: the retry policy's back-off, the provisioning and power waits,
 * the session listing's batching window, the refresh's power-reading window. One seam, so that a test can run
 * a wait of minutes at once and assert what the code asked for (the delays it requested), not how long a
 * loaded machine took.
 */
export interface Clock {
    /** Milliseconds since the epoch. */
    now(): number;
    /** Resolves after `ms` milliseconds. */
    sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
    now: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))),
};
