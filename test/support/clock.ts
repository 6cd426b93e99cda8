import { Clock } from "../../provider/clock";

/**
 * A clock for tests: `sleep` resolves at once (after letting other promises run) and moves `now` forward by
 * what was asked; `sleeps` records every request in order.
 */
export class ManualClock implements Clock {
    readonly sleeps: number[] = [];

    constructor(private current = Date.now()) {}

    now(): number {
        return this.current;
    }

    async sleep(ms: number): Promise<void> {
        this.sleeps.push(ms);
        this.current += Math.max(0, ms);
        await new Promise((resolve) => setImmediate(resolve));
    }
}
