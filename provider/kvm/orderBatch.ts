/** One add/order for the servers a deployment creates together (`edis:batchOrders`); ids map by place. */
import { randomBytes } from "node:crypto";
import { Clock } from "../clock";
import { ENDPOINTS, EdisClient } from "../client/client";
import { EdisApiError } from "../client/errors";
import { OrderItem, OrderRequest, OrderResult } from "../client/model";
import { Flights, Gathering } from "../flights";
import { OrderBatchInfo, OrderEntry, OrderJournal, resolveCommand } from "../journal";
import { PaidOutcome, WriteOutcomeUnknownError, sendOnce } from "../paidWrite";
import { sameHostname } from "./inputs";

/** The longest a create waits for others to join its order: seconds, against minutes of provisioning. */
export const BATCH_WAIT_MAX_MS = 5_000;
/** An order leaves only when no create has started or arrived for this long (see flights.ts). */
export const BATCH_QUIET_MS = 1_000;

export interface BatchMember {
    /** The order's terms: members with equal terms share an order. */
    terms: Omit<OrderRequest, "items">;
    item: OrderItem;
    /** The member's "sending" entry (unclaimed); without one (no resource key) nothing is journalled for it. */
    entry?: OrderEntry;
    unknown(problem: string, entry?: OrderEntry): WriteOutcomeUnknownError;
    /** The order as it concerns this member: its own service id first (the first member also gets any extra ids). */
    settle(outcome: BatchedOrder | { error: unknown }): void;
}

export interface BatchedOrder {
    outcome: PaidOutcome<OrderResult>;
    batch: OrderBatchInfo;
}

export class OrderBatcher {
    private readonly orders: Gathering<BatchMember>;

    constructor(
        private readonly client: EdisClient,
        private readonly flights: Flights,
        private readonly journal: OrderJournal,
        clock: Clock,
        private readonly log: (line: string) => void,
        private readonly cancelled: AbortSignal,
    ) {
        this.orders = flights.add(new Gathering<BatchMember>(clock, BATCH_WAIT_MAX_MS, (members) => this.send(members), BATCH_QUIET_MS));
    }

    /** Orders this member's server with the others in flight; resolves with the order as it concerns this member. */
    order(member: Omit<BatchMember, "settle">): Promise<BatchedOrder> {
        return new Promise((resolve, reject) => this.flights.arrive(this.orders, { ...member, settle: (r) => ("error" in r ? reject(r.error) : resolve(r)) }));
    }

    /** A create that will not order (it adopts, or resumes an order): the others need not wait for it. */
    notOrdering(): void {
        this.flights.leave(this.orders);
    }

    /** One order per set of terms; two members of one host name never share one (batchCheck.ts tells them apart by it). */
    private send(arrived: BatchMember[]): void {
        const orders: BatchMember[][] = [];
        const termsOf = (m: BatchMember) => JSON.stringify([m.terms.billingCycle, m.terms.paymentMethod, m.terms.applyCredit]);
        for (const m of arrived) {
            const fits = orders.find((o) => termsOf(o[0]) === termsOf(m) && !o.some((x) => sameHostname(x.item.hostname, m.item.hostname)));
            if (fits) fits.push(m);
            else orders.push([m]);
        }
        for (const members of orders) void this.sendGroup(members);
    }

    /** Sends one order; every member is settled whatever happens (a member left unsettled would hang its create). */
    private async sendGroup(members: BatchMember[]): Promise<void> {
        const settled = new Set<BatchMember>();
        const tracked = members.map((m) => ({ ...m, settle: (r: Parameters<BatchMember["settle"]>[0]) => (settled.add(m), m.settle(r)) }));
        try {
            await this.sendTracked(tracked);
        } catch (e) {
            this.log(`warning: the batched order of ${members.map((m) => m.item.hostname).join(", ")} stopped: ${(e as Error).message}`);
            for (const m of members) if (!settled.has(m)) m.settle({ error: e });
        }
    }

    private async sendTracked(members: BatchMember[]): Promise<void> {
        if (this.cancelled.aborted) {
            const cancelled = new Error(`the deployment was cancelled before the batch was ordered: nothing was ordered`);
            for (const m of members) m.settle({ error: cancelled });
            return;
        }
        const id = randomBytes(8).toString("hex");
        const claimed = await this.claim(members, id);
        if (!claimed.length) return;
        if (claimed.length > 1) {
            this.log(`ordering ${claimed.length} servers in one order (batch ${id}): ${claimed.map((m) => m.item.hostname).join(", ")}`);
        }
        const entries = claimed.map((m) => m.entry).filter((e): e is OrderEntry => !!e);
        const indexOfEntry = new Map(claimed.flatMap((m, i) => (m.entry ? [[m.entry, i] as const] : [])));
        let outcome: PaidOutcome<OrderResult>;
        try {
            outcome = await sendOnce<OrderEntry, OrderResult>({
                journal: this.journal,
                claimed: entries,
                endpoint: ENDPOINTS.order.path,
                log: this.log,
                send: () => this.client.addOrder({ ...claimed[0].terms, items: claimed.map((m) => m.item) }),
                made: (sending, order) => orderedAt(sending, order, indexOfEntry.get(sending)!, claimed.length),
                madeDespite: (sending, e) => orderedDespite(sending, e, indexOfEntry.get(sending)!, claimed.length),
                extra: (o) => unplacedIds(o, claimed.length),
                unknown: (problem) => new WriteOutcomeUnknownError("the batched order", problem, ""),
            });
        } catch (e) {
            for (const m of claimed) m.settle({ error: e instanceof WriteOutcomeUnknownError ? m.unknown(e.problem, m.entry) : e });
            return;
        }
        const order: OrderResult = "answered" in outcome ? outcome.answered : namedOrder(outcome.named);
        // The ids no member holds by place (sendOnce recorded them as extra services): the first member names them.
        const placed = Math.min(order.placed, claimed.length);
        const extra = unplacedIds(outcome, claimed.length).serviceIds;
        const hostnames = claimed.map((c) => c.item.hostname);
        for (const [i, m] of claimed.entries()) {
            if (i >= placed) {
                const problem = `EDIS ${"named" in outcome ? `answered "${outcome.named.message}"` : `accepted order ${order.orderId}`} but named ${order.placed} service id(s) for ${claimed.length} servers${namedElsewhere(i === 0 ? extra : [])}`;
                m.settle({ error: m.unknown(problem, m.entry) });
                continue;
            }
            const serviceIds = [order.serviceIds[i], ...(i === 0 ? extra : [])];
            const mine: OrderResult = { ...order, serviceIds, placed: 1 };
            m.settle({ outcome: "answered" in outcome ? { answered: mine } : { named: outcome.named.with({ serviceIds, servicesPlaced: 1 }) }, batch: { id, index: i, hostnames } });
        }
    }

    /** Claims each member's entry with its place in the order; if one cannot be claimed, none is ordered. */
    private async claim(members: BatchMember[], id: string): Promise<BatchMember[]> {
        const hostnames = members.map((m) => m.item.hostname);
        // All at once: against a shared store each claim is a request.
        const tried = await Promise.all(
            members.map(async (m, index) => {
                if (!m.entry) return m;
                const entry: OrderEntry = { ...m.entry, batch: { id, index, hostnames } };
                try {
                    await this.journal.claim(entry);
                    return { ...m, entry };
                } catch (e) {
                    m.settle({ error: e });
                    return undefined;
                }
            }),
        );
        const claimed = tried.filter((m): m is BatchMember => m !== undefined);
        if (claimed.length === members.length) return claimed;
        // Rare (another deployment claimed a member, or the store failed): the places written would not be the order's.
        for (const m of claimed) {
            let next = "run `pulumi up` again";
            if (m.entry) {
                const forget = resolveCommand("forget", m.entry.key, this.journal, "order");
                await this.journal.clear(m.entry.key, "order").catch((e) => (next = `its entry stays in the order journal (${(e as Error).message}): run \`${forget}\`, then \`pulumi up\``));
            }
            m.settle({ error: new Error(`nothing was ordered for ${m.item.hostname}: another server of its batch could not be claimed in the order journal; ${next}`) });
        }
        return [];
    }
}

/** The entry of the server at `index` of an answered order of `size` items: "ordered" with the service id there, else "unknown"; batched or not. */
export function orderedAt(sending: OrderEntry, order: OrderResult, index: number, size: number): OrderEntry {
    const { orderId, invoiceId, invoicePaid, serviceIds } = order;
    if (index >= order.placed) {
        return { ...sending, state: "unknown", orderId, invoiceId, problem: `EDIS accepted order ${orderId} but named ${order.placed} service id(s) for ${size} server(s)` };
    }
    return { ...sending, state: "ordered", serviceId: serviceIds[index], orderId, invoiceId, invoicePaid };
}

/** The entry for a failed answer naming what was made: "ordered" at this place's service id, else "unknown" for the user to resolve. */
export function orderedDespite(sending: OrderEntry, e: EdisApiError, index: number, size: number): OrderEntry | undefined {
    if (!e.serviceIds?.length && e.orderId === undefined) return undefined;
    const order = namedOrder(e);
    if (index >= order.placed) return { ...sending, state: "unknown", orderId: e.orderId, invoiceId: e.invoiceId, problem: e.message };
    return orderedAt(sending, order, index, size);
}

/** The services an order's answer names past its `size` items' places (every one, when none is placed): kept as extra. */
export function unplacedIds(outcome: PaidOutcome<OrderResult>, size: number): { orderId?: number; serviceIds: number[] } {
    const order = "answered" in outcome ? outcome.answered : namedOrder(outcome.named);
    return { orderId: order.orderId, serviceIds: order.serviceIds.slice(Math.min(order.placed, size)) };
}

/** The services an answer named outside its items' places, recorded as extra: said in the error of the item that has none. */
export function namedElsewhere(extra: number[]): string {
    return extra.length ? `; it named service ${extra.join(", ")} elsewhere, recorded in the order journal as extra` : "";
}

export function namedOrder(e: EdisApiError): OrderResult {
    const serviceIds = e.serviceIds ?? [];
    return { orderId: e.orderId, serviceIds, placed: e.servicesPlaced ?? serviceIds.length, invoiceId: e.invoiceId, invoicePaid: false };
}
