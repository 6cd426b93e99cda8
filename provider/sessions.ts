/** KVM session entries (get/auth): one account listing, shared by concurrent reads for seconds and by creates. */
import { stopsWaiting } from "./client/answers";
import { SingleFlightCache } from "./cache";
import { Clock, systemClock } from "./clock";
import { EdisClient, listedSession } from "./client/client";
import { isEdisApiError } from "./client/errors";
import { KvmListing, KvmSession } from "./client/model";
import { Flights, Gathering } from "./flights";

export const SESSION_LISTING_TTL_MS = 5_000;
/** Nothing next to a provisioning wait of minutes. */
export const LISTING_WAIT_MAX_MS = 2_000;

interface Lookup {
    kvmId: string;
    resolve: (session: KvmSession | undefined) => void;
    reject: (e: unknown) => void;
}

/** An entry that could not be read is there, and only its KVM is affected. */
export class Listing {
    constructor(private readonly answer: KvmListing) {}

    has(kvmId: string): boolean {
        return this.answer.sessions.some((s) => s.kvmId === kvmId) || this.answer.unreadable.some((u) => u.kvmIds.includes(kvmId));
    }

    /** An unreadable entry whose KVM cannot be told: it may be any server's, so none is concluded gone. */
    unidentified(): boolean {
        return this.answer.unreadable.some((u) => !u.identified);
    }

    get(kvmId: string): KvmSession | undefined {
        return listedSession(this.answer, kvmId);
    }

    values(): KvmSession[] {
        return this.answer.sessions;
    }
}

export class SessionDirectory {
    private readonly listing = new SingleFlightCache<Listing>(SESSION_LISTING_TTL_MS);
    /** A new KVM already in it needs no other. */
    private last?: Listing;
    private readonly newKvms: Gathering<Lookup>;

    constructor(
        private readonly client: EdisClient,
        private readonly flights: Flights = new Flights(),
        clock: Clock = systemClock,
    ) {
        this.newKvms = flights.add(new Gathering<Lookup>(clock, LISTING_WAIT_MAX_MS, (lookups) => this.list(lookups)));
    }

    all(): Promise<Listing> {
        return this.listing.get("all", async () => (this.last = new Listing(await this.client.getAuth())));
    }

    /** From the last listing, else the next shared one, else asked for directly. */
    find(kvmId: string): Promise<KvmSession | undefined> {
        const last = this.last;
        if (last?.has(kvmId)) {
            this.flights.leave(this.newKvms);
            return Promise.resolve().then(() => last.get(kvmId));
        }
        return new Promise<KvmSession | undefined>((resolve, reject) => this.flights.arrive(this.newKvms, { kvmId, resolve, reject }));
    }

    async one(kvmId: string): Promise<KvmSession | undefined> {
        try {
            return listedSession(await this.client.getAuth(kvmId), kvmId);
        } catch (e) {
            // Not listed (yet): the callers wait or keep the server for it.
            if (isEdisApiError(e) && e.kind === "refused" && !stopsWaiting(e)) return undefined;
            throw e;
        }
    }

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
