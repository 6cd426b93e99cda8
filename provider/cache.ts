/** A single-flight cache: concurrent callers of a key share one request, kept for `ttlMs`; a failed load is not kept. */
export class SingleFlightCache<V> {
    private readonly entries = new Map<string, { value: Promise<V>; expires: number }>();

    constructor(private readonly ttlMs: number) {}

    /** `T`: what this key's loads give (a key always names one kind of value). */
    get<T extends V>(key: string, load: () => Promise<T>): Promise<T> {
        const hit = this.entries.get(key);
        if (hit && hit.expires > Date.now()) return hit.value as Promise<T>;
        const value = load();
        const entry = { value, expires: Number.POSITIVE_INFINITY };
        this.entries.set(key, entry);
        value.then(
            () => (entry.expires = Date.now() + this.ttlMs),
            () => this.entries.get(key) === entry && this.entries.delete(key),
        );
        return value;
    }

    invalidate(): void {
        this.entries.clear();
    }
}
