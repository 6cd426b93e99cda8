/**
 * A single-flight cache: concurrent callers of the same key share one request, and the answer is kept for `ttlMs`; in the
 * one host process of a deployment (runtime.ts) a refresh of N servers costs one get/auth. A failed load is not kept.
 */
export class SingleFlightCache<V> {
    private readonly entries = new Map<string, { value: Promise<V>; expires: number }>();

    constructor(
        private readonly ttlMs: number,
        private readonly now: () => number = Date.now,
    ) {}

    get(key: string, load: () => Promise<V>): Promise<V> {
        const hit = this.entries.get(key);
        if (hit && hit.expires > this.now()) return hit.value;
        const value = load();
        // Until it settles the entry never expires, so that slow answers are still shared.
        const entry = { value, expires: Number.POSITIVE_INFINITY };
        this.entries.set(key, entry);
        value.then(
            () => (entry.expires = this.now() + this.ttlMs),
            () => this.entries.get(key) === entry && this.entries.delete(key),
        );
        return value;
    }

    invalidate(key?: string): void {
        if (key === undefined) this.entries.clear();
        else this.entries.delete(key);
    }
}
