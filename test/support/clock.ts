import { Clock } from "../../provider/clock";

/** `sleep` resolves at once (after other promises run) and moves `now` on by what was asked; `sleeps` records each. */
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
