/** The typed EDIS client: credentials go into request bodies only; its EdisApiErrors withhold them and signatures. */
import { z } from "zod";
import { EdisApiError } from "./errors";
import { describeIds, idsInAnswer } from "./namedIds";
import { addSecret } from "./withhold";
import {
    BillingCycle,
    CancelResult,
    CancellationType,
    KvmListing,
    KvmSession,
    LocationListing,
    OrderRequest,
    OrderResult,
    PaymentMethod,
    Product,
    UpgradeRequest,
    UpgradeResult,
} from "./model";
import { systemClock } from "../clock";
import { buildOrderDocument } from "./order";
import { EndpointCall, RequestSettings, request } from "./request";
import { DEFAULT_RETRY_POLICY, RetryPolicy } from "./retry";
import * as wire from "./schemas";

export const DEFAULT_BASE_URL = "https://order.edisglobal.com";
export const DEFAULT_AUTH_URL = "https://session.edisglobal.com";

export interface EdisClientOptions extends Partial<Omit<RequestSettings, "retryPolicy">> {
    email: string;
    password: string;
    /** Order API host; paths below it start with /kvm/v2/. */
    baseUrl?: string;
    authUrl?: string;
    retry?: Partial<RetryPolicy>;
}

export interface Endpoint {
    path: string;
    host: "order" | "auth";
    encoding: "form" | "json";
    /** "safe": repeating it cannot spend money or change anything twice. */
    retry: "safe" | "never";
    /** An order: a failed answer is read for every id it names, each of which may be billed as this kind of order. */
    idsBilledAs?: "order" | "upgrade order";
}

export const ENDPOINTS = {
    locations: { path: "get/locations", host: "order", encoding: "form", retry: "safe" },
    products: { path: "get/products", host: "order", encoding: "form", retry: "safe" },
    billingCycles: { path: "get/billingcycles", host: "order", encoding: "form", retry: "safe" },
    paymentMethods: { path: "get/paymentmethods", host: "order", encoding: "form", retry: "safe" },
    order: { path: "add/order", host: "order", encoding: "form", retry: "never", idsBilledAs: "order" },
    kvmId: { path: "get/kvmid", host: "order", encoding: "form", retry: "safe" },
    serviceId: { path: "get/serviceid", host: "order", encoding: "form", retry: "safe" },
    cancel: { path: "cancel/product", host: "order", encoding: "form", retry: "safe" },
    upgrade: { path: "add/upgrade", host: "order", encoding: "json", retry: "never", idsBilledAs: "upgrade order" },
    auth: { path: "get/auth", host: "auth", encoding: "form", retry: "safe" },
} as const satisfies Record<string, Endpoint>;

export class EdisClient {
    private readonly email: string;
    private readonly password: string;
    private readonly baseUrl: string;
    private readonly authUrl: string;
    /** @internal */
    readonly settings: RequestSettings;

    constructor(options: EdisClientOptions) {
        this.email = options.email;
        this.password = options.password;
        addSecret(options.password, { credential: true });
        addSecret(options.email, { wholeOnly: true, credential: true });
        this.baseUrl = trimSlash(options.baseUrl ?? DEFAULT_BASE_URL);
        this.authUrl = trimSlash(options.authUrl ?? DEFAULT_AUTH_URL);
        this.settings = {
            timeoutMs: options.timeoutMs ?? 30_000,
            retryPolicy: { ...DEFAULT_RETRY_POLICY, ...options.retry },
            log: options.log ?? (() => undefined),
            userAgent: options.userAgent ?? "pulumi-edis",
            clock: options.clock ?? systemClock,
            cancelled: options.cancelled,
        };
    }

    getLocations(): Promise<LocationListing> {
        return this.call(ENDPOINTS.locations, {}, wire.locationsAnswer);
    }

    getProducts(locationId: number): Promise<Product[]> {
        return this.call(ENDPOINTS.products, { location_id: locationId }, wire.productsAnswer(locationId));
    }

    getBillingCycles(): Promise<BillingCycle[]> {
        return this.call(ENDPOINTS.billingCycles, {}, wire.billingCyclesAnswer);
    }

    getPaymentMethods(): Promise<PaymentMethod[]> {
        return this.call(ENDPOINTS.paymentMethods, {}, wire.paymentMethodsAnswer);
    }

    /** Places an order, never retried. A failed answer throws with every id it names: each may be a billed server. */
    async addOrder(order: OrderRequest): Promise<OrderResult> {
        return this.call(ENDPOINTS.order, { order: JSON.stringify(buildOrderDocument(order)) }, wire.orderAnswer);
    }

    /** The KVM id of a service, or undefined while the service is not provisioned yet. */
    getKvmId(serviceId: number): Promise<string | undefined> {
        return this.call(ENDPOINTS.kvmId, { serviceid: serviceId }, wire.kvmIdAnswer, { serviceId });
    }

    getServiceId(kvmId: string): Promise<number | undefined> {
        return this.call(ENDPOINTS.serviceId, { kvmid: kvmId }, wire.serviceIdAnswer, { kvmId });
    }

    cancelProduct(args: { serviceId?: number; kvmId?: string; type: CancellationType }): Promise<CancelResult> {
        if (args.serviceId === undefined && !args.kvmId) throw new Error("cancelProduct needs a serviceId or a kvmId");
        const fields: Record<string, string | number> = { type: args.type };
        if (args.serviceId !== undefined) fields.serviceid = args.serviceId;
        if (args.kvmId) fields.kvmid = args.kvmId;
        return this.call(ENDPOINTS.cancel, fields, wire.cancelAnswer, { serviceId: args.serviceId, kvmId: args.kvmId, named: true });
    }

    /** Changes plan or billing cycle in place (same location only). Never retried: it creates an invoice. */
    addUpgrade(req: UpgradeRequest): Promise<UpgradeResult> {
        return this.call(
            ENDPOINTS.upgrade,
            {
                kvmid: req.kvmId,
                newpid: req.newPid,
                // add/upgrade documents the half-year cycle with a hyphen.
                newbillingcycle: req.newBillingCycle === "semiannually" ? "semi-annually" : req.newBillingCycle,
                newpaymentmethod: req.newPaymentMethod,
            },
            wire.upgradeAnswer,
            { kvmId: req.kvmId, serviceId: req.serviceId, named: true },
        );
    }

    /** Session entries of one KVM, or of every KVM of the account. Signatures are secrets from here on. */
    async getAuth(kvmId?: string): Promise<KvmListing> {
        const listing = await this.call(ENDPOINTS.auth, kvmId ? { kvm_id: kvmId } : {}, wire.authAnswer);
        listing.sessions.forEach((s) => addSecret(s.signature));
        listing.unreadable.forEach((u) => u.signatures.forEach((signature) => addSecret(signature)));
        return listing;
    }

    private call<S extends z.ZodType>(
        endpoint: Endpoint,
        fields: Record<string, string | number | boolean>,
        schema: S,
        about?: EndpointCall<unknown>["about"],
    ): Promise<z.output<S>> {
        return request(this.settings, {
            endpoint: endpoint.path,
            url: `${endpoint.host === "auth" ? this.authUrl : this.baseUrl}/kvm/v2/${endpoint.path}`,
            encoding: endpoint.encoding,
            retry: endpoint.retry,
            fields: { email: this.email, pw: this.password, ...fields },
            schema,
            about,
        }).catch((e) => {
            throw endpoint.idsBilledAs ? withNamedIds(e, endpoint.idsBilledAs) : e;
        });
    }
}

function withNamedIds(e: unknown, what: string): unknown {
    if (!(e instanceof EdisApiError) || !e.rawAnswer) return e;
    const ids = idsInAnswer(e.rawAnswer);
    const named = describeIds(ids);
    if (!named) return e;
    return e.with({
        orderId: ids.fields.orderIds[0],
        serviceIds: ids.fields.serviceIds,
        servicesPlaced: ids.placed,
        invoiceId: ids.fields.invoiceIds[0],
        detail: `${e.detail ? `${e.detail}; ` : ""}the answer names ${named.replace(/^order\b/, what)}, so EDIS may have made something that is billed`,
    });
}

export function trimSlash(url: string): string {
    return url.replace(/\/+$/, "");
}

/** One KVM's entry in a listing: undefined when the listing lacks it; an error when its entry could not be read. */
export function listedSession(listing: KvmListing, kvmId: string): KvmSession | undefined {
    const unreadable = listing.unreadable.find((u) => u.kvmIds.includes(kvmId));
    if (unreadable) {
        throw new EdisApiError({ endpoint: ENDPOINTS.auth.path, kind: "unexpected_answer", detail: `the account's listing entry of ${kvmId} cannot be read: ${unreadable.problem}` });
    }
    return listing.sessions.find((s) => s.kvmId === kvmId);
}
