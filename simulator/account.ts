/** The simulated account without HTTP: specified answers in their exact shapes (test/spec); elsewhere one choice. */
import { createHmac, randomBytes } from "node:crypto";
import {
    ADDON_GROUPS,
    BILLING_CYCLE_MONTHS,
    LOCATIONS,
    PAYMENT_METHODS,
    PLANS,
    SimAddonGroup,
    SimPlan,
    addonOf,
    priceFor,
    wireLocations,
    wireProducts,
} from "./catalogue";

export class SimError extends Error {
    constructor(
        readonly httpStatus: number,
        message: string,
    ) {
        super(message);
    }
}

export interface SimService {
    serviceId: number;
    orderId: number;
    invoiceId: number;
    pid: number;
    os: number;
    addons: Record<string, number>;
    hostname: string;
    sshPublicKey: string;
    billingCycle: string;
    paymentMethod: string;
    status: "Pending" | "Active" | "Suspended" | "Cancelled";
    createdAt: number;
    provisionAt?: number;
    kvmId?: string;
    /** One Management API host per server, as the vendor's example shows. */
    apiHost?: string;
    /** From 198.18.0.0/15, a range reserved for tests. */
    ips?: string[];
    power?: "on" | "off";
    trafficSuspended?: boolean;
    vnc?: { password: string; port: number };
    ptr?: Record<string, string>;
    hooks?: SimHook[];
    kvmIdPolls?: number;
    cancellation?: { type: string; at: number };
}

export interface SimHook {
    id: number;
    method: string;
    url: string;
    trigger: string;
    user?: string;
    password?: string;
}

export interface SimInvoice {
    invoiceId: number;
    amount: string;
    paid: boolean;
}

export interface SimOrder {
    orderId: number;
    serviceIds: number[];
    invoiceId: number;
    status: "Active" | "Failed";
}

export type AccountState = ReturnType<typeof newAccountState>;

/** Behaviour a test or the command line can switch on (faults that change answers, not transport). */
export interface AccountBehaviour {
    /** Milliseconds from payment to a visible KVM. */
    provisioningDelayMs: number;
    /** Orders are left unpaid even when credit would cover them. */
    unpaidInvoices: boolean;
    /** Product ids that are out of stock: add/order creates the order and answers `failed`. */
    outOfStock: number[];
    /** get/kvmid while a service has no KVM (the vendor leaves it open): `kvmid: null`, or HTTP 200 `{status: "error"}`. */
    kvmIdNotYet: "null" | "error";
    /** get/kvmid calls a paid service answers "not yet" before its KVM appears, beside the delay; 0 for none. */
    provisioningPolls: number;
    /** How long a get/auth session entry is valid, in seconds (its `valid_until`). */
    sessionTtlSeconds: number;
}

export const DEFAULT_BEHAVIOUR: AccountBehaviour = {
    provisioningDelayMs: 2000,
    unpaidInvoices: false,
    outOfStock: [],
    kvmIdNotYet: "null",
    provisioningPolls: 0,
    sessionTtlSeconds: 3600,
};

/** The reverse-DNS API host that every session entry names (the vendor's is of the form dns-api.<domain>). */
export const RDNS_API_HOST = "dns-api.edis-sim.invalid";

/** The vendor's sample once spells `additional_driveboost`; no plan in the specification has `additional_vcpu`. */
const ITEM_ADDON_FIELDS: Array<[field: string, group: SimAddonGroup | undefined]> = [
    ["additional_ram", "additional ram"],
    ["additional_vcpu", undefined],
    ["additional_ip", "additional ip"],
    ["additional_diskboost", "additional drive boost"],
    ["additional_driveboost", "additional drive boost"],
];

export function newAccountState(email: string, password: string, credit = 1000) {
    return {
        email,
        password,
        clientId: 4242,
        credit,
        nextId: 1,
        orders: [] as SimOrder[],
        invoices: [] as SimInvoice[],
        services: [] as SimService[],
        cancellations: [] as Array<{ serviceId: number; type: string; at: number }>,
        upgrades: [] as Array<{ serviceId: number; fromPid: number; toPid: number; billingCycle: string; at: number }>,
        /** Signs session entries (HMAC of KVM id and valid_until), so any issued signature can be checked. */
        sessionKey: randomBytes(32).toString("hex"),
        /** "API Access" of the KVM portal: account-wide, as the vendor describes it. */
        apiAccess: true as boolean | undefined,
    };
}

export class Account {
    /** The catalogue this account sees; a test may change it (a new OS, a cheaper plan) as EDIS would. */
    readonly plans: SimPlan[] = structuredClone(PLANS);
    /** Every signature get/auth handed out (in memory): what tests look for in state, logs and errors. */
    readonly issuedSignatures = new Set<string>();

    constructor(
        public state: AccountState,
        public behaviour: AccountBehaviour,
    ) {}

    private planById(pid: number): SimPlan | undefined {
        return this.plans.find((p) => p.pid === pid);
    }

    authenticate(fields: Record<string, unknown>): void {
        if (fields.email === undefined || fields.pw === undefined) throw new SimError(400, "Missing email or pw");
        if (fields.email !== this.state.email || fields.pw !== this.state.password) {
            throw new SimError(401, "Authentication failed: invalid email or password");
        }
    }

    private id(offset: number): number {
        // Distinct ranges so that an order id is never mistaken for a service id in a test.
        return offset + this.state.nextId++;
    }

    advance(): void {
        const now = Date.now();
        const polls = this.behaviour.provisioningPolls;
        for (const s of this.state.services) {
            const polledEnough = polls === 0 || (s.kvmIdPolls ?? 0) > polls;
            if (s.status === "Pending" && s.provisionAt !== undefined && now >= s.provisionAt && polledEnough) {
                s.status = "Active";
                s.kvmId = `kvm_${100000 + s.serviceId}_${Array.from(randomBytes(6), (b) => b % 10).join("")}`;
                s.apiHost = `kvm${s.serviceId}.api.edis-sim.invalid`;
                s.ips = [`198.18.${(s.serviceId >> 8) & 255}.${s.serviceId & 255}`];
                s.power = "on";
            }
        }
    }

    private service(fields: Record<string, unknown>): SimService {
        const serviceId = fields.serviceid !== undefined && fields.serviceid !== "" ? Number(fields.serviceid) : undefined;
        const kvmId = typeof fields.kvmid === "string" && fields.kvmid !== "" ? fields.kvmid : undefined;
        if (serviceId === undefined && kvmId === undefined) throw new SimError(400, "Missing serviceid or kvmid");
        if (serviceId !== undefined && !Number.isInteger(serviceId)) throw new SimError(400, "serviceid must be a number");
        const found = this.state.services.find(
            (s) => (serviceId === undefined || s.serviceId === serviceId) && (kvmId === undefined || s.kvmId === kvmId),
        );
        if (!found || found.status === "Cancelled") {
            throw new SimError(404, `Service not found${serviceId !== undefined ? ` (serviceid ${serviceId})` : ` (kvmid ${kvmId})`}`);
        }
        return found;
    }

    private payInvoiceFromCredit(invoice: SimInvoice): void {
        if (this.behaviour.unpaidInvoices || this.state.credit < Number(invoice.amount)) return;
        this.state.credit = Math.round((this.state.credit - Number(invoice.amount)) * 100) / 100;
        this.markPaid(invoice);
    }

    private markPaid(invoice: SimInvoice): void {
        invoice.paid = true;
        for (const s of this.state.services) {
            if (s.invoiceId === invoice.invoiceId && s.status === "Pending") {
                s.provisionAt = Date.now() + this.behaviour.provisioningDelayMs;
            }
        }
    }

    getLocations() {
        return { status: "success", locations: wireLocations() };
    }

    getProducts(fields: Record<string, unknown>) {
        const raw = fields.location_id ?? fields.location;
        if (raw === undefined || raw === "") throw new SimError(400, "Missing location_id");
        const locationId = Number(raw);
        if (!LOCATIONS.some((l) => l.id === locationId)) throw new SimError(404, `Unknown location_id ${String(raw)}`);
        return { status: "success", products: wireProducts(this.plans, locationId) };
    }

    getBillingCycles() {
        return { status: "success", billingcycles: Object.keys(BILLING_CYCLE_MONTHS) };
    }

    getPaymentMethods() {
        return { status: "success", paymentmethods: PAYMENT_METHODS.map((m) => m.module) };
    }

    addOrder(fields: Record<string, unknown>) {
        if (typeof fields.order !== "string") throw new SimError(400, "Missing order");
        let order: any;
        try {
            order = JSON.parse(fields.order);
        } catch {
            throw new SimError(400, "order is not valid JSON");
        }
        const cycle = String(order?.billingcycle ?? "");
        if (!(cycle in BILLING_CYCLE_MONTHS)) throw new SimError(400, `Invalid billingcycle "${cycle}"`);
        if (!PAYMENT_METHODS.some((m) => m.module === order.paymentmethod)) {
            throw new SimError(400, `Invalid paymentmethod "${String(order.paymentmethod)}"`);
        }
        if (!Array.isArray(order.item) || order.item.length === 0) throw new SimError(400, "order.item must be a non-empty list");

        let total = 0;
        const items = order.item.map((item: any, i: number) => {
            const plan = this.planById(Number(item?.pid));
            if (!plan) throw new SimError(400, `item ${i}: unknown pid ${String(item?.pid)}`);
            total += priceFor(plan.monthly, cycle)!;
            if (!addonOf(plan, "operating system", Number(item.os))) {
                throw new SimError(400, `item ${i}: os ${String(item.os)} is not offered with pid ${plan.pid}`);
            }
            if (typeof item.hostname !== "string" || item.hostname === "") throw new SimError(400, `item ${i}: missing hostname`);
            const addons: Record<string, number> = {};
            for (const [field, group] of ITEM_ADDON_FIELDS) {
                const raw = item[field];
                if (raw === undefined || raw === "" || raw === null) continue;
                const addon = group && addonOf(plan, group, Number(raw));
                if (!addon) throw new SimError(400, `item ${i}: ${field} ${String(raw)} is not offered with pid ${plan.pid}`);
                addons[ADDON_GROUPS[group!]] = addon.id;
                total += addon.monthly === undefined ? 0 : priceFor(addon.monthly, cycle)!;
            }
            return { plan, item, addons };
        });

        const orderId = this.id(5000);
        if (items.some(({ plan }: any) => this.behaviour.outOfStock.includes(plan.pid))) {
            this.state.orders.push({ orderId, serviceIds: [], invoiceId: 0, status: "Failed" });
            return { status: "failed", orderid: orderId };
        }
        const invoice: SimInvoice = { invoiceId: this.id(9000), amount: total.toFixed(2), paid: false };
        this.state.invoices.push(invoice);
        const serviceIds = items.map(({ plan, item, addons }: any) => {
            const service: SimService = {
                serviceId: this.id(1000),
                orderId,
                invoiceId: invoice.invoiceId,
                pid: plan.pid,
                os: Number(item.os),
                addons,
                hostname: item.hostname,
                sshPublicKey: typeof item.ssh_pubkey === "string" ? item.ssh_pubkey : "",
                billingCycle: cycle,
                paymentMethod: order.paymentmethod,
                status: "Pending",
                createdAt: Date.now(),
            };
            this.state.services.push(service);
            return service.serviceId;
        });
        this.state.orders.push({ orderId, serviceIds, invoiceId: invoice.invoiceId, status: "Active" });
        if (order.applycredit !== false) this.payInvoiceFromCredit(invoice);
        return {
            status: "success",
            orderid: orderId,
            serviceids: serviceIds.join(","),
            invoiceid: invoice.invoiceId,
            invoicepaid: invoice.paid,
        };
    }

    getKvmId(fields: Record<string, unknown>) {
        if (fields.serviceid === undefined) throw new SimError(400, "Missing serviceid");
        const s = this.service({ serviceid: fields.serviceid });
        if (s.status === "Pending") {
            s.kvmIdPolls = (s.kvmIdPolls ?? 0) + 1;
            this.advance();
        }
        if (!s.kvmId && this.behaviour.kvmIdNotYet === "error") {
            return { status: "error", message: `Service ${s.serviceId} has no KVM assigned at the moment` };
        }
        return { status: "success", serviceid: s.serviceId, kvmid: s.kvmId ?? null };
    }

    getServiceId(fields: Record<string, unknown>) {
        if (typeof fields.kvmid !== "string" || fields.kvmid === "") throw new SimError(400, "Missing kvmid");
        const s = this.service({ kvmid: fields.kvmid });
        return { status: "success", serviceid: String(s.serviceId) };
    }

    cancelProduct(fields: Record<string, unknown>) {
        const type = fields.type;
        if (type !== "Immediate" && type !== "End of Billing Period") {
            throw new SimError(400, `Invalid type "${String(type)}": use "Immediate" or "End of Billing Period"`);
        }
        const s = this.service(fields);
        this.cancelService(s, type);
        return { status: "success", serviceid: s.serviceId, clientid: this.state.clientId };
    }

    cancelService(s: SimService, type: string): void {
        const at = Date.now();
        this.state.cancellations.push({ serviceId: s.serviceId, type, at });
        if (type === "Immediate") {
            s.status = "Cancelled";
            delete s.vnc;
            s.hooks = [];
            s.ptr = {};
        }
        s.cancellation = { type, at };
    }

    addUpgrade(fields: Record<string, unknown>) {
        const s = this.service({ kvmid: fields.kvmid });
        if (s.status === "Pending") throw new SimError(400, "The service is not provisioned yet");
        const from = this.planById(s.pid)!;
        const to = this.planById(Number(fields.newpid));
        if (!to) throw new SimError(400, `Unknown newpid ${String(fields.newpid)}`);
        if (to.locationId !== from.locationId) throw new SimError(400, "Upgrades are only possible within the same location");
        const cycle = String(fields.newbillingcycle ?? "").replace("semi-annually", "semiannually");
        const price = priceFor(to.monthly, cycle);
        if (price === undefined) throw new SimError(400, `Invalid newbillingcycle "${String(fields.newbillingcycle)}"`);
        if (!PAYMENT_METHODS.some((m) => m.module === fields.newpaymentmethod)) {
            throw new SimError(400, `Invalid newpaymentmethod "${String(fields.newpaymentmethod)}"`);
        }
        const invoice: SimInvoice = { invoiceId: this.id(9000), amount: price.toFixed(2), paid: false };
        this.state.invoices.push(invoice);
        this.payInvoiceFromCredit(invoice);
        const orderId = this.id(5000);
        this.state.orders.push({ orderId, serviceIds: [s.serviceId], invoiceId: invoice.invoiceId, status: "Active" });
        this.state.upgrades.push({ serviceId: s.serviceId, fromPid: from.pid, toPid: to.pid, billingCycle: cycle, at: Date.now() });
        s.pid = to.pid;
        s.billingCycle = cycle;
        return {
            status: "success",
            orderid: String(orderId),
            serviceid: String(s.serviceId),
            invoiceid: String(invoice.invoiceId),
            oldproductname: from.name,
            newproductname: to.name,
            oldproductid: String(from.pid),
            newproductid: String(to.pid),
        };
    }

    getAuth(fields: Record<string, unknown>) {
        const wanted = typeof fields.kvm_id === "string" && fields.kvm_id !== "" ? fields.kvm_id : undefined;
        const listed = this.state.services.filter((s) => s.kvmId && (s.status === "Active" || s.status === "Suspended"));
        const chosen = wanted ? listed.filter((s) => s.kvmId === wanted) : listed;
        if (wanted && chosen.length === 0) throw new SimError(404, `Unknown kvm_id ${wanted}`);
        const validUntil = Math.floor(Date.now() / 1000) + this.behaviour.sessionTtlSeconds;
        const data: Record<string, unknown> = {};
        for (const s of chosen) {
            const signature = this.sign(s.kvmId!, validUntil);
            this.issuedSignatures.add(signature);
            data[s.kvmId!] = {
                api_host: s.apiHost,
                api_rdns: RDNS_API_HOST,
                kvm_id: s.kvmId,
                valid_until: validUntil,
                signature,
                suspended: s.status === "Suspended" ? "y" : "n",
                description: s.hostname,
                lps: String(s.serviceId % 100).padStart(2, "0"),
                lps_ispremium: false,
            };
        }
        return { status: "success", data };
    }

    /** 50 characters, as the specification shows. */
    sign(kvmId: string, validUntil: number): string {
        return createHmac("sha512", this.state.sessionKey).update(`${kvmId}|${validUntil}`).digest("base64url").slice(0, 50);
    }

    listedService(kvmId: unknown): SimService | undefined {
        return this.state.services.find((s) => s.kvmId !== undefined && s.kvmId === kvmId && (s.status === "Active" || s.status === "Suspended"));
    }

    payInvoice(invoiceId: number): void {
        const invoice = this.state.invoices.find((i) => i.invoiceId === invoiceId);
        if (!invoice) throw new SimError(404, `Unknown invoice ${invoiceId}`);
        if (!invoice.paid) this.markPaid(invoice);
    }

    setSuspended(serviceId: number, suspended: boolean): void {
        const s = this.service({ serviceid: serviceId });
        if (s.status !== "Active" && s.status !== "Suspended") throw new SimError(400, "Only provisioned services can be suspended");
        s.status = suspended ? "Suspended" : "Active";
    }

    setPower(serviceId: number, state: "on" | "off"): void {
        const s = this.service({ serviceid: serviceId });
        if (!s.kvmId) throw new SimError(400, "The service is not provisioned yet");
        s.power = state;
    }

    setPassword(password: string): void {
        this.state.password = password;
    }
}
