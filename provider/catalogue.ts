/**
 * The catalogue as one process sees it (locations, products per location, billing cycles, payment methods), each fetched
 * once and shared for a few minutes: by the pre-order check, and by the SDK's lookups, so a program run fetches each once.
 */
import { SingleFlightCache } from "./cache";
import { EdisClient } from "./client/client";
import { isEdisApiError } from "./client/errors";
import { BillingCycle, Location, PaymentMethod, Product } from "./client/model";

export const CATALOGUE_TTL_MS = 5 * 60_000;

/** A location and its products; `unreadable` says why a location has none that could be read. */
export interface CatalogueEntry {
    location: Location;
    products: Product[];
    unreadable?: string;
}

export class Catalogue {
    private readonly cache = new SingleFlightCache<unknown>(CATALOGUE_TTL_MS);

    constructor(readonly client: EdisClient) {}

    locations(): Promise<Location[]> {
        return this.cached("locations", () => this.client.getLocations());
    }

    products(locationId: number): Promise<Product[]> {
        return this.cached(`products:${locationId}`, () => this.client.getProducts(locationId));
    }

    billingCycles(): Promise<BillingCycle[]> {
        return this.cached("billingcycles", () => this.client.getBillingCycles());
    }

    paymentMethods(): Promise<PaymentMethod[]> {
        return this.cached("paymentmethods", () => this.client.getPaymentMethods());
    }

    /**
     * Every location with its products, fetched in parallel. A location whose catalogue cannot be read (its answer, once
     * retried) is there with no products and the reason: it affects only what depends on it (findPlan), and is asked
     * again only after the cache's time, not once per server.
     */
    async everything(): Promise<CatalogueEntry[]> {
        const locations = await this.locations();
        const outcomes = await Promise.all(
            locations.map((location) =>
                this.cached(`products?:${location.id}`, () => this.products(location.id).then((products) => ({ products }), (error: unknown) => ({ error }))),
            ),
        );
        return locations.map((location, i) => {
            const { products, error } = outcomes[i] as { products?: Product[]; error?: unknown };
            // Refused credentials, or not our error: nothing true can be said of any location.
            if (error !== undefined && (!isEdisApiError(error) || error.kind === "credentials")) throw error;
            return error === undefined ? { location, products: products! } : { location, products: [], unreadable: (error as Error).message };
        });
    }

    /** The plan with this id and its location, or undefined; "cannot tell" (an error) when it is not found while a location could not be read. */
    async findPlan(planId: number): Promise<{ location: Location; plan: Product } | undefined> {
        const all = await this.everything();
        for (const { location, products } of all) {
            const plan = products.find((p) => p.id === planId);
            if (plan) return { location, plan };
        }
        const unreadable = all.filter((e) => e.unreadable !== undefined);
        if (unreadable.length) {
            throw new Error(
                `planId ${planId} is not a product at any location whose catalogue could be read, and whether it is sold at ` +
                    `${unreadable.map((e) => `${e.location.name} (locationId ${e.location.id}), whose catalogue could not be read (${e.unreadable})`).join("; ")} cannot be told`,
            );
        }
        return undefined;
    }

    private cached<T>(key: string, load: () => Promise<T>): Promise<T> {
        return this.cache.get(key, load) as Promise<T>;
    }
}
