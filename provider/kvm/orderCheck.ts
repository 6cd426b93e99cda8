/** The pre-order check: all the catalogue can refute, before add/order or add/upgrade so that a mistake costs nothing. */
import { Catalogue } from "../catalogue";
import { Addon, BillingCycle, ListPrice, Location, PaymentMethod, Product } from "../client/model";
import { ProviderConfig, describeSetting } from "../config";
import { ADDON_INPUTS, KvmServerInputs } from "./inputs";
import type { KvmServerDiff } from "./diff";

export class OrderCheckError extends Error {
    override name = "OrderCheckError";
    constructor(
        readonly problems: string[],
        outcome = "nothing was ordered",
    ) {
        super(`${outcome}: ${problems.join("; ")}`);
    }
}

const LIST_MAX = 8;

function listItems(items: Array<Addon | Product>): string {
    const shown = items.slice(0, LIST_MAX).map((a) => `${a.id} (${a.name})`);
    return shown.join(", ") || "none";
}

function listAddons(addons: Addon[]): string {
    return listItems(addons) + (addons.length > LIST_MAX ? `, and ${addons.length - LIST_MAX} more` : "");
}

function describeLocation(l: Location): string {
    return `${l.name} (locationId ${l.id})`;
}

/** The payment method an order or upgrade uses: the input, else config; an error naming both when neither. */
export function resolvePaymentMethod(requested: string | undefined, config: ProviderConfig, purpose: string): string {
    const method = requested ?? config.paymentMethod;
    if (!method) {
        throw new Error(
            `${purpose} needs a payment method: set the paymentMethod input or ${describeSetting("paymentMethod")}; ` +
                `edis.getPaymentMethods() lists the account's methods`,
        );
    }
    return method;
}

function paymentMethodProblem(methods: PaymentMethod[], method: string): string | undefined {
    if (methods.some((m) => m.id === method)) return undefined;
    return `paymentMethod "${method}" is not available to this account; available: ${methods.map((m) => m.id).join(", ")}`;
}

export function billingCycleProblem(plan: Product, cycle: BillingCycle): string | undefined {
    if (plan.prices[cycle] !== undefined) return undefined;
    return `billingCycle "${cycle}" is not sold for plan ${plan.id} (${plan.name}); sold: ${Object.keys(plan.prices).join(", ") || "none"}`;
}

export async function checkOrder(
    catalogue: Catalogue,
    inputs: KvmServerInputs,
    paymentMethod: string,
): Promise<{ plan: Product; location: Location }> {
    const problems: string[] = [];
    const [everything, methods, home] = await Promise.all([catalogue.everything(), catalogue.paymentMethods(), catalogue.findPlan(inputs.planId)]);
    const methodProblem = paymentMethodProblem(methods, paymentMethod);
    if (methodProblem) problems.push(methodProblem);

    const wanted = inputs.locationId !== undefined ? everything.find((e) => e.location.id === inputs.locationId) : undefined;
    if (inputs.locationId !== undefined && !wanted) {
        throw new OrderCheckError([
            ...problems,
            `locationId ${inputs.locationId} is not an EDIS location; locations: ${everything.map((e) => describeLocation(e.location)).join(", ")}`,
        ]);
    }
    if (!home) {
        const where = wanted ?? everything[0];
        throw new OrderCheckError([
            ...problems,
            `planId ${inputs.planId} is not a product at any location` +
                (where ? `; plans at ${describeLocation(where.location)}: ${listItems(where.products)} (see edis.getPlans())` : ""),
        ]);
    }
    if (wanted && home.location.id !== wanted.location.id) {
        throw new OrderCheckError([
            ...problems,
            `planId ${inputs.planId} belongs to ${describeLocation(home.location)}, not to ${describeLocation(wanted.location)}; ` +
                `plans there: ${listItems(wanted.products)}`,
        ]);
    }
    const { plan } = home;
    const planName = `plan ${plan.id} (${plan.name})`;
    problems.push(...targetProblems(everything, home, inputs.billingCycle));

    if (!plan.addons.os.some((a) => a.id === inputs.osId)) {
        problems.push(`osId ${inputs.osId} is not an operating system of ${planName}; allowed: ${listAddons(plan.addons.os)}`);
    }
    for (const [input, { group, label }] of Object.entries(ADDON_INPUTS)) {
        const id = inputs[input as keyof typeof ADDON_INPUTS];
        if (id !== undefined && !plan.addons[group].some((a) => a.id === id)) {
            problems.push(`${input} ${id} is not a ${label} of ${planName}; allowed: ${listAddons(plan.addons[group])}`);
        }
    }
    if (problems.length) throw new OrderCheckError(problems);
    return { plan, location: home.location };
}

/** How to move a server to another plan when EDIS will not change it in place. */
export const REPLACE_HINT =
    `To move it instead, replace the server: set \`replaceOnPlanChange: true\` on it (a new server is ordered, then this one ` +
    `is cancelled; the \`replaceOnChanges\` resource option does nothing for this resource).`;

type Everything = Awaited<ReturnType<Catalogue["everything"]>>;

/** What the catalogue refutes of a plan as what is bought, by an order and by a plan change alike: stock, billing cycle. */
function targetProblems(everything: Everything, home: { plan: Product; location: Location }, cycle: BillingCycle, newPlan = true): string[] {
    const { plan, location } = home;
    const problems: string[] = [];
    // Another billing cycle of the plan it has takes no new capacity: stock does not decide it.
    if (newPlan && location.outOfStock) {
        const inStock = everything.filter((e) => !e.location.outOfStock).map((e) => describeLocation(e.location));
        problems.push(`${describeLocation(location)} is out of stock (get/locations says so); locations in stock: ${inStock.join(", ") || "none"}`);
    } else if (newPlan && plan.outOfStock) {
        const here = everything.find((e) => e.location.id === location.id);
        problems.push(`plan ${plan.id} (${plan.name}) is out of stock at ${describeLocation(location)}; plans in stock there: ${listItems((here?.products ?? []).filter((p) => !p.outOfStock))}`);
    }
    const cycleProblem = billingCycleProblem(plan, cycle);
    return cycleProblem ? [...problems, cycleProblem] : problems;
}

/**
 * Throws OrderCheckError when the catalogue refutes a plan change of `name` (a server on plan `fromPlanId`): the order's
 * rules for what is bought, and EDIS changes plans only within a location. Run by preview's check and by the update.
 */
export async function checkUpgrade(catalogue: Catalogue, name: string, fromPlanId: number | undefined, news: KvmServerInputs, paymentMethod: string): Promise<void> {
    const [everything, methods, from, to] = await Promise.all([
        catalogue.everything(),
        catalogue.paymentMethods(),
        fromPlanId === undefined ? undefined : catalogue.findPlan(fromPlanId),
        catalogue.findPlan(news.planId),
    ]);
    const unchanged = `nothing was changed for ${name}`;
    if (!to) throw new OrderCheckError([`planId ${news.planId} is not a product at any location (see edis.getPlans())`], unchanged);
    if (from && from.location.id !== to.location.id) {
        throw new OrderCheckError(
            [
                `planId ${news.planId} (${to.plan.name}) is at ${to.location.name}, but ${name} is at ${from.location.name}; EDIS changes ` +
                    `plans only within a location. ${REPLACE_HINT}`,
            ],
            unchanged,
        );
    }
    const methodProblem = paymentMethodProblem(methods, paymentMethod);
    const problems = [...targetProblems(everything, to, news.billingCycle, news.planId !== fromPlanId), ...(methodProblem ? [methodProblem] : [])];
    if (problems.length) throw new OrderCheckError(problems, unchanged);
}

/** Drops add-on changes between unset and the plan's unpriced "no extra" entry: the same server (diff and check). */
export async function withoutNoExtraAddons(catalogue: () => Catalogue, olds: Record<string, unknown>, diff: KvmServerDiff, news: Record<string, unknown>): Promise<KvmServerDiff> {
    const same: string[] = [];
    for (const input of Object.keys(ADDON_INPUTS) as Array<keyof typeof ADDON_INPUTS>) {
        if (!diff.changed.includes(input) || typeof olds.planId !== "number") continue;
        const [a, b] = [olds[input], news[input]];
        const chosen = a == null && typeof b === "number" ? b : b == null && typeof a === "number" ? a : undefined;
        if (chosen === undefined) continue;
        const home = await catalogue().findPlan(olds.planId);
        if (home?.plan.addons[ADDON_INPUTS[input].group].find((x) => x.id === chosen)?.unpriced === true) same.push(input);
    }
    if (!same.length) return diff;
    const changed = diff.changed.filter((n) => !same.includes(n));
    return { ...diff, changed, changes: changed.length > 0, replaces: diff.replaces.filter((n) => !same.includes(n)) };
}

const MONTHS: Record<BillingCycle, number> = { monthly: 1, quarterly: 3, semiannually: 6, annually: 12 };

/** What an order buys at list price (before tax): the plan per cycle, the add-ons per month, and the monthly sum. */
export function listPrice(plan: Product, inputs: Pick<KvmServerInputs, "billingCycle" | keyof typeof ADDON_INPUTS>): (ListPrice & { text: string }) | undefined {
    const cycle = inputs.billingCycle;
    const perCycle = plan.prices[cycle];
    if (perCycle === undefined) return undefined;
    const addons = Object.entries(ADDON_INPUTS).flatMap(([input, { group }]) => {
        const id = (inputs as unknown as Record<string, unknown>)[input];
        const addon = id === undefined ? undefined : plan.addons[group].find((a) => a.id === id);
        return addon && addon.prices.monthly !== undefined ? [addon] : [];
    });
    const monthly = Math.round((perCycle / MONTHS[cycle] + addons.reduce((sum, a) => sum + a.prices.monthly!, 0)) * 100) / 100;
    const what = `${plan.name}${addons.length ? ` with ${addons.map((a) => a.name).join(", ")}` : ""}`;
    const billed = cycle === "monthly" ? "billed monthly" : `billed ${cycle} (${perCycle.toFixed(2)} ${plan.currency})`;
    const text = `${what}, ${billed}: ${monthly.toFixed(2)} ${plan.currency}/month at list price before tax`;
    return { amount: perCycle, billingCycle: cycle, currency: plan.currency, monthly, text };
}

/** The list price of a server's plan as the catalogue has it now; undefined when it cannot be told (never an error). */
export async function currentListPrice(catalogue: Catalogue, inputs: Partial<KvmServerInputs>): Promise<(ListPrice & { text: string }) | undefined> {
    if (inputs.planId === undefined || inputs.billingCycle === undefined) return undefined;
    const home = await catalogue.findPlan(inputs.planId).catch(() => undefined);
    return home && listPrice(home.plan, inputs as KvmServerInputs);
}
