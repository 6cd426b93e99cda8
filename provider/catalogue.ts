/** The catalogue, each part fetched once per process and shared for a few minutes by pre-order checks and lookups. */
import { SingleFlightCache } from "./cache";
import { EdisClient } from "./client/client";
import { isEdisApiError } from "./client/errors";
import { BillingCycle, Location, LocationListing, PaymentMethod, Product } from "./client/model";

export const CATALOGUE_TTL_MS = 5 * 60_000;

export class Catalogue {
    private readonly cache = new SingleFlightCache<unknown>(CATALOGUE_TTL_MS);

    constructor(readonly client: EdisClient) {}

    async locations(): Promise<Location[]> {
        return (await this.locationListing()).locations;
    }

    locationListing(): Promise<LocationListing> {
        return this.cache.get("locations", () => this.client.getLocations());
    }

    products(locationId: number): Promise<Product[]> {
        return this.cache.get(`products:${locationId}`, () => this.client.getProducts(locationId));
    }

    billingCycles(): Promise<BillingCycle[]> {
        return this.cache.get("billingcycles", () => this.client.getBillingCycles());
    }

    paymentMethods(): Promise<PaymentMethod[]> {
        return this.cache.get("paymentmethods", () => this.client.getPaymentMethods());
    }

    /** A location whose catalogue cannot be read has no products and a reason: it affects only what depends on it. */
    async everything(): Promise<Array<{ location: Location; products: Product[]; unreadable?: string }>> {
        const locations = await this.locations();
        const outcomes = await Promise.all(
            locations.map((location) =>
                this.cache.get(`products?:${location.id}`, () => this.products(location.id).then((products) => ({ products }), (error: unknown) => ({ error }))),
            ),
        );
        return locations.map((location, i) => {
            const { products, error } = outcomes[i] as { products?: Product[]; error?: unknown };
            if (error !== undefined && (!isEdisApiError(error) || error.kind === "credentials")) throw error;
            return error === undefined ? { location, products: products! } : { location, products: [], unreadable: (error as Error).message };
        });
    }

    /** Throws ("cannot tell") when it is not found while a location could not be read. */
    async findPlan(planId: number): Promise<{ location: Location; plan: Product } | undefined> {
        const all = await this.everything();
        for (const { location, products } of all) {
            const plan = products.find((p) => p.id === planId);
            if (plan) return { location, plan };
        }
        const unreadable = [
            ...all.filter((e) => e.unreadable !== undefined).map((e) => `${e.location.name} (locationId ${e.location.id}), whose catalogue could not be read (${e.unreadable})`),
            ...(await this.locationListing()).unreadable.map((entry) => `the location ${entry}, whose entry in get/locations could not be read`),
        ];
        if (unreadable.length) {
            throw new Error(`planId ${planId} is not a product at any location whose catalogue could be read, and whether it is sold at ${unreadable.join("; ")} cannot be told`);
        }
        return undefined;
    }
}
