/**
 * KVM session entries (get/auth). A refresh reads every server of a deployment at once, so the listing of
 * the whole account is fetched once and shared by all concurrent reads (single flight, kept a few seconds).
 * A create needs the entry of one new KVM: servers that are provisioned close together share one listing
 * too (a short batching window), so N new servers cost a few get/auth calls, not N.
 */
import { SingleFlightCache } from "./cache";
import { EdisClient } from "./client/client";
import { isEdisApiError } from "./client/errors";
import { KvmSession } from "./client/model";

export const SESSION_LISTING_TTL_MS = 5_000;
/** How long a new KVM waits for others to share its listing: nothing next to a provisioning wait of minutes. */
export const LISTING_BATCH_MS = 250;

export class SessionDirectory {
    private readonly listing = new SingleFlightCache<Map<string, KvmSession>>(SESSION_LISTING_TTL_MS);
    private batch?: Promise<Map<string, KvmSession>>;

    constructor(private readonly client: EdisClient) {}

    /** Every KVM of the account, keyed by KVM id. */
    all(): Promise<Map<string, KvmSession>> {
        return this.listing.get("all", async () => new Map((await this.client.getAuth()).map((s) => [s.kvmId, s])));
    }

    /**
     * A newly provisioned KVM's entry: from the shared listing when it is there already, else from the next
     * listing, which every KVM that misses within LISTING_BATCH_MS shares; asked for directly as a last resort.
     */
    async find(kvmId: string): Promise<KvmSession | undefined> {
        const cached = await this.all();
        if (cached.has(kvmId)) return cached.get(kvmId);
        this.batch ??= new Promise((r) => setTimeout(r, LISTING_BATCH_MS)).then(() => {
            this.batch = undefined;
            this.listing.invalidate();
            return this.all();
        });
        return (await this.batch).get(kvmId) ?? this.one(kvmId);
    }

    /** One KVM's entry, asked for directly; undefined when EDIS does not know it (yet). */
    async one(kvmId: string): Promise<KvmSession | undefined> {
        try {
            return (await this.client.getAuth(kvmId)).find((s) => s.kvmId === kvmId);
        } catch (e) {
            if (isEdisApiError(e) && e.meaning === "gone") return undefined;
            throw e;
        }
    }

    /** After an order or a cancel the account's listing is stale. */
    invalidate(): void {
        this.listing.invalidate();
    }
}
