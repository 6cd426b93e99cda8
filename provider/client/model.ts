/**
 * The clean, camelCase types that the client returns. Wire spellings live in `schemas.ts` only.
 */

export const BILLING_CYCLES = ["monthly", "quarterly", "semiannually", "annually"] as const;
/** A billing cycle as plan prices and add/order spell it. */
export type BillingCycle = (typeof BILLING_CYCLES)[number];
/** A billing cycle as users may write it: the canonical names, and `semi-annually` (how add/upgrade documents it). */
export type BillingCycleSpelling = BillingCycle | "semi-annually";

export const CANCELLATION_TYPES = ["Immediate", "End of Billing Period"] as const;
/** What deleting a server (`pulumi destroy`, or removing it from the program) asks EDIS to do. */
export type CancellationType = (typeof CANCELLATION_TYPES)[number];

/**
 * Accepts the spellings users and the API use (`semi-annually` is how add/upgrade documents it, `Monthly` is
 * how a control panel shows it) and returns the canonical one, or undefined when it is not a billing cycle.
 */
export function normalizeBillingCycle(value: string): BillingCycle | undefined {
    const key = value.trim().toLowerCase().replace(/[\s_-]/g, "");
    return (BILLING_CYCLES as readonly string[]).includes(key) ? (key as BillingCycle) : undefined;
}

/** List prices per billing cycle (before tax), in the currency beside them; a cycle the product is not sold in is absent. */
export type Prices = Partial<Record<BillingCycle, number>>;

/** get/locations, each entry read on its own: one that cannot be read is named, and affects only what may be there. */
export interface LocationListing {
    locations: Location[];
    /** The entries that could not be read: their names (withheld unless plainly words) and what was wrong. */
    unreadable: string[];
}

/** A data centre EDIS sells servers in (get/locations). */
export interface Location {
    /** The location id: `locationId` of getPlans and KvmServer. */
    id: number;
    /** The display name, the key of the location in get/locations, e.g. "Frankfurt, Germany". */
    name: string;
    /** Descriptive text; absent when EDIS gives none or an empty one. */
    headline?: string;
    /** Country, where the answer names one (the specification does not show it). */
    country?: string;
    /** Out of stock, where the answer says so (the specification does not show it). */
    outOfStock?: boolean;
}

/** An add-on or operating system of a plan (get/products), as an order names it. */
export interface Addon {
    /** The add-on id, for the matching KvmServer input (osId, additionalRamId, ...). */
    id: number;
    /** The add-on's label, the `description` of the answer, e.g. "Debian 12 (64bit)". */
    name: string;
    /** Prices per cycle; empty for operating systems and for the "no extra" entry, which cost nothing. */
    prices: Prices;
    /** The currency of `prices`, when it has any. */
    currency?: string;
    /** The answer gave it no price at all (operating systems, the "no extra" entry); a price in no billing cycle is still a price. */
    unpriced?: boolean;
}

/** The four add-on groups the order document knows, plus the operating systems; unknown groups are kept. */
export interface AddonGroups {
    /** The operating systems: KvmServer's osId. */
    os: Addon[];
    /** Extra RAM: KvmServer's additionalRamId. */
    ram: Addon[];
    /** Extra vCPUs: KvmServer's additionalVcpuId. */
    vcpu: Addon[];
    /** Extra IP addresses: KvmServer's additionalIpId. */
    ip: Addon[];
    /** Disk boosts: KvmServer's diskBoostId. */
    diskBoost: Addon[];
    /** Groups this client does not know, by their wire name, so that nothing the API offers is hidden. */
    other: Record<string, Addon[]>;
}

/** The add-on groups a KvmServer can order from, by their input: additionalRamId, additionalVcpuId, additionalIpId, diskBoostId. */
export type AddonGroupName = "ram" | "vcpu" | "ip" | "diskBoost";
/** The API's own names of those groups (get/products), which getAddon takes too. */
export type WireAddonGroupName = "additional ram" | "additional vcpu" | "additional ip" | "additional drive boost";

export interface Product {
    /** The product id, `pid` in an order. */
    id: number;
    /** The display name, the key of the plan in get/products, e.g. "KVM M". */
    name: string;
    /** The location the plan is sold at. */
    locationId: number;
    /**
     * The figures of the plan's description, converted from their units (MByte, GByte, TByte, core/socket);
     * absent when the answer gives none or a unit this client does not know.
     */
    cpu?: number;
    /** RAM in MB. */
    ramMb?: number;
    /** Disk in GB. */
    diskGb?: number;
    /** Monthly traffic in TB. */
    trafficTb?: number;
    /** The currency of `prices`. */
    currency: string;
    /** The list price per billing cycle, in `currency` (12.5 for EDIS's "12.50"). */
    prices: Prices;
    /** The add-ons the plan can be ordered with, by group. */
    addons: AddonGroups;
    /** Sold out, where the answer says so (the specification does not show it). */
    outOfStock?: boolean;
}

/** A payment method the account may pay an order with (get/paymentmethods). */
export interface PaymentMethod {
    /** What add/order's `paymentmethod` takes. */
    id: string;
    /** The name EDIS shows for it (the id when the answer gives none). */
    name: string;
}

/** One item of an order: a server. Add-on fields carry an add-on id, or nothing for none. */
export interface OrderItem {
    pid: number;
    os: number;
    hostname: string;
    additionalRam?: number;
    additionalVcpu?: number;
    additionalIp?: number;
    diskBoost?: number;
    sshPublicKey?: string;
}

export interface OrderRequest {
    billingCycle: BillingCycle;
    paymentMethod: string;
    applyCredit: boolean;
    items: OrderItem[];
}

export interface OrderResult {
    /** The order's id; an answer that names services but no order is still an order. */
    orderId?: number;
    /** The items' services in item order (the first `placed`), then any other service the answer names. */
    serviceIds: number[];
    /** How many of `serviceIds` are the items' by place: those of the one record with a readable `serviceids` field, else none. */
    placed: number;
    invoiceId?: number;
    invoicePaid: boolean;
}

export interface CancelResult {
    serviceId?: number;
}

export interface UpgradeRequest {
    kvmId: string;
    /** The service the KVM is, when known: a success that names another is not about this server. */
    serviceId?: number;
    newPid: number;
    newBillingCycle: BillingCycle;
    newPaymentMethod: string;
}

export interface UpgradeResult {
    orderId?: number;
    serviceId?: number;
    invoiceId?: number;
}

/** A server's list price before tax, from EDIS's catalogue: what a program can sum for a fleet and a policy can read. */
export interface ListPrice {
    /** The plan's price per billing cycle, e.g. 23.28 for a quarterly plan. */
    amount: number;
    /** The billing cycle the amount is for. */
    billingCycle: BillingCycle;
    /** EDIS's currency code for the prices, e.g. "EUR". */
    currency: string;
    /** The monthly equivalent: the amount divided by the months of its cycle, plus each add-on's monthly price, to the cent. */
    monthly: number;
}

/** A KVM of the account as every lookup returns it: what get/auth says of it, without its session credential. */
export interface KvmSessionInfo {
    /** The KVM id, e.g. "kvm_123456_789012". */
    kvmId: string;
    /** Host name of the server's own management API. */
    apiHost: string;
    /** Host name of the reverse-DNS API endpoint. */
    apiRdns?: string;
    /** When the session expires, in Unix seconds. */
    validUntil?: number;
    /** True when EDIS has suspended the server (the answer's `suspended` is a letter other than "n"). */
    suspended: boolean;
    /** The server's label. */
    description?: string;
    /** A two-digit code EDIS gives the session's platform. */
    lps?: string;
    /** Whether that platform is premium. */
    lpsIsPremium?: boolean;
}

/** A KVM's get/auth entry with its session credential: the provider's own, never a lookup's result. */
export interface KvmSession extends KvmSessionInfo {
    /**
     * `valid_until` exactly as EDIS wrote it ("1737476000"; the vendor's pages also show "2025-01-12T15:30:00Z"):
     * what goes back with every Management API call, since the signature may be bound to that text.
     */
    validUntilText?: string;
    /** The session signature for the management API: a credential. */
    signature: string;
}

export const POWER_STATES = ["on", "off"] as const;
/** A server's power state as the Management API reports it. */
export type PowerState = (typeof POWER_STATES)[number];

/** get/power, parsed. */
export interface PowerStatus {
    state: PowerState;
    /** EDIS's own words, e.g. "server powered on". */
    text: string;
    /** True when EDIS has suspended the server's traffic (its traffic allowance is used up). */
    trafficSuspended?: boolean;
}

/** get/vnc/status or set/vnc/enable, parsed. */
export interface VncStatus {
    enabled: boolean;
    host?: string;
    port?: number;
    /** Port of the browser (noVNC) console. */
    novncPort?: number;
}

/** The HTTP method of a traffic hook's callback. */
export type CallbackMethod = "post" | "get";

/** A traffic alert as hooks/set takes it. */
export interface TrafficHookRequest {
    callbackUrl: string;
    callbackMethod: CallbackMethod;
    /** Percent of the traffic allowance, 1 to 100. */
    triggerPercent: number;
    callbackUser?: string;
    callbackPassword?: string;
}

/** An account's get/auth listing: the entries that could be read, and those that could not (each affects only its KVM). */
export interface KvmListing {
    sessions: KvmSession[];
    unreadable: UnreadableSession[];
}

/** A listing entry that could not be read. */
export interface UnreadableSession {
    /** The KVM ids it names: its key and its `kvm_id`. */
    kvmIds: string[];
    /** Whether it is surely the entry of its key's KVM (no `kvm_id` that says otherwise): else it may be any server's. */
    identified: boolean;
    /** What was wrong with it (the schema's words, no values). */
    problem: string;
    /** Signatures it holds, withheld like any other. */
    signatures: string[];
}
