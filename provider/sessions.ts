/**
 * KVM session entries (get/auth). A refresh reads every server of a deployment at once, so the listing of
 * the whole account is fetched once and shared by all concurrent reads (single flight, kept a few seconds).
 *
 * A create needs the entry of one new KVM: the creates in flight share one listing (a Gathering, flights.ts), so when EDIS
 * provisions at once, N creates at the engine's parallelism P cost about N / P listings, whatever the machine's speed.
 */
import { stopsWaiting } from "./client/answers";
import { SingleFlightCache } from "./cache";
import { Clock, systemClock } from "./clock";
import { EdisClient, listedSession } from "./client/client";
import { isEdisApiError } from "./client/errors";
import { KvmListing, KvmSession } from "./client/model";
import { Flights, Gathering } from "./flights";

export const SESSION_LISTING_TTL_MS = 5_000;
/** The longest a new KVM waits for other creates to share its listing: nothing next to a provisioning wait of minutes. */
export const LISTING_WAIT_MAX_MS = 2_000;

interface Lookup {
    kvmId: string;
    resolve: (session: KvmSession | undefined) => void;
    reject: (e: unknown) => void;
}

/** The account's KVMs as one listing showed them: an entry that could not be read is there, and only its KVM is affected. */
export class Listing {
    constructor(private readonly answer: KvmListing) {}

    /** Whether the listing names the KVM, readable or not. */
    has(kvmId: string): boolean {
        return this.answer.sessions.some((s) => s.kvmId === kvmId) || this.answer.unreadable.some((u) => u.kvmIds.includes(kvmId));
    }

    /** The KVM's entry: undefined when the listing lacks it; an error when its entry could not be read. */
    get(kvmId: string): KvmSession | undefined {
        return listedSession(this.answer, kvmId);
    }

    /** The entries that could be read. */
    values(): KvmSession[] {
        return this.answer.sessions;
    }
}

export class SessionDirectory {
    private readonly listing = new SingleFlightCache<Listing>(SESSION_LISTING_TTL_MS);
    /** The last listing EDIS answered: a new KVM already in it needs no other. */
    private last?: Listing;
    private readonly newKvms: Gathering<Lookup>;

    constructor(
        private readonly client: EdisClient,
        private readonly flights: Flights = new Flights(),
        clock: Clock = systemClock,
    ) {
        this.newKvms = flights.add(new Gathering<Lookup>(clock, LISTING_WAIT_MAX_MS, (lookups) => this.list(lookups)));
    }

    /** Every KVM of the account, keyed by KVM id. */
    all(): Promise<Listing> {
        return this.listing.get("all", async () => (this.last = new Listing(await this.client.getAuth())));
    }

    /** A new KVM's entry: from the last listing if it is there, else from the next shared one, else asked for directly. */
    find(kvmId: string): Promise<KvmSession | undefined> {
        const last = this.last;
        if (last?.has(kvmId)) {
            this.flights.leave(this.newKvms);
            return Promise.resolve().then(() => last.get(kvmId));
        }
        return new Promise<KvmSession | undefined>((resolve, reject) => this.flights.arrive(this.newKvms, { kvmId, resolve, reject }));
    }

    /** One KVM's entry, asked for directly; undefined when EDIS refuses it (it does not list it, or not yet). */
    async one(kvmId: string): Promise<KvmSession | undefined> {
        try {
            return listedSession(await this.client.getAuth(kvmId), kvmId);
        } catch (e) {
            // Not listed (yet): any refusal that is not about the login. The callers wait or keep the server for it.
            if (isEdisApiError(e) && e.kind === "refused" && !stopsWaiting(e)) return undefined;
            throw e;
        }
    }

    /** After an order or a cancel the account's listing is stale. */
    invalidate(): void {
        this.listing.invalidate();
        this.last = undefined;
    }

    private list(lookups: Lookup[]): void {
        this.listing.invalidate();
        this.all().then(
            (listed) => {
                for (const l of lookups) {
                    if (!listed.has(l.kvmId)) this.one(l.kvmId).then(l.resolve, l.reject);
                    else {
                        try {
                            l.resolve(listed.get(l.kvmId));
                        } catch (e) {
                            l.reject(e);
                        }
                    }
                }
            },
            (e) => lookups.forEach((l) => l.reject(e)),
        );
    }
}
