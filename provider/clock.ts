/** Time, as every wait of the provider sees it: one seam, so that a test can run a wait of minutes at once. */
export interface Clock {
    now(): number;
    sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
    now: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))),
};
