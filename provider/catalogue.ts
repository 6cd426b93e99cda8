/**
 * The catalogue as one process sees it (locations, products per location, billing cycles, payment methods), each fetched
 * once and shared for a few minutes: by the pre-order check, and by the SDK's lookups, so a program run fetches each once.
 */
import { SingleFlightCache } from "./cache";
import { EdisClient } from "./client/client";
import { BillingCycle, Location, PaymentMethod, Product } from "./client/model";

export const CATALOGUE_TTL_MS = 5 * 60_000;

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

    /** Every location with its products, fetched in parallel. */
    async everything(): Promise<Array<{ location: Location; products: Product[] }>> {
        const locations = await this.locations();
        return Promise.all(locations.map(async (location) => ({ location, products: await this.products(location.id) })));
    }

    /** The plan with this id and its location, or undefined. */
    async findPlan(planId: number): Promise<{ location: Location; plan: Product } | undefined> {
        for (const { location, products } of await this.everything()) {
            const plan = products.find((p) => p.id === planId);
            if (plan) return { location, plan };
        }
        return undefined;
    }

    private cached<T>(key: string, load: () => Promise<T>): Promise<T> {
        return this.cache.get(key, load) as Promise<T>;
    }
}
