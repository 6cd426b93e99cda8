/** A single-flight cache: concurrent callers of a key share one request, kept for `ttlMs`; a failed load is not kept. */
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
