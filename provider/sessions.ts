/**
 * KVM session entries (get/auth). A refresh reads every server of a deployment at once, so the listing of
 * the whole account is fetched once and shared by all concurrent reads (single flight, kept a few seconds).
 */
import { SingleFlightCache } from "./cache";
import { EdisClient } from "./client/client";
import { isEdisApiError } from "./client/errors";
import { KvmSession } from "./client/model";

export const SESSION_LISTING_TTL_MS = 5_000;

export class SessionDirectory {
    private readonly listing = new SingleFlightCache<Map<string, KvmSession>>(SESSION_LISTING_TTL_MS);

    constructor(private readonly client: EdisClient) {}

    /** Every KVM of the account, keyed by KVM id. */
    all(): Promise<Map<string, KvmSession>> {
        return this.listing.get("all", async () => new Map((await this.client.getAuth()).map((s) => [s.kvmId, s])));
    }

    /** One KVM's entry, asked for directly; undefined when EDIS does not know it (yet). */
    async one(kvmId: string): Promise<KvmSession | undefined> {
        try {
            return (await this.client.getAuth(kvmId)).find((s) => s.kvmId === kvmId);
        } catch (e) {
            if (isEdisApiError(e) && e.kind === "not_found") return undefined;
            throw e;
        }
    }

    /** After an order or a cancel the account's listing is stale. */
    invalidate(): void {
        this.listing.invalidate();
    }
}
