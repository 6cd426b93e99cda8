/**
 * The pre-order check: everything about an order that the catalogue can refute, checked before add/order so
 * that a mistake costs nothing. All problems are reported at once, each naming the input, what was wrong
 * and what is allowed.
 */
import { Catalogue } from "../catalogue";
import { Addon, Location, Product } from "../client/model";
import { ADDON_INPUTS, KvmServerInputs } from "./inputs";

export class OrderCheckError extends Error {
    constructor(readonly problems: string[]) {
        super(`nothing was ordered: ${problems.join("; ")}`);
        this.name = "OrderCheckError";
    }
}

const LIST_MAX = 8;

function listAddons(addons: Addon[]): string {
    const shown = addons.slice(0, LIST_MAX).map((a) => `${a.id} (${a.name})`);
    return (shown.join(", ") || "none") + (addons.length > LIST_MAX ? `, and ${addons.length - LIST_MAX} more` : "");
}

function listPlans(products: Product[]): string {
    return products.slice(0, LIST_MAX).map((p) => `${p.id} (${p.name})`).join(", ") || "none";
}

function describeLocation(l: Location): string {
    return `${l.name} (locationId ${l.id})`;
}

/** Returns the plan and its location when the order can be placed; throws OrderCheckError otherwise. */
export async function checkOrder(
    catalogue: Catalogue,
    inputs: KvmServerInputs,
    paymentMethod: string,
): Promise<{ plan: Product; location: Location }> {
    const problems: string[] = [];
    const [everything, methods] = await Promise.all([catalogue.everything(), catalogue.paymentMethods()]);

    if (!methods.some((m) => m.id === paymentMethod)) {
        problems.push(`paymentMethod "${paymentMethod}" is not available to this account; available: ${methods.map((m) => m.id).join(", ")}`);
    }

    const wanted = inputs.locationId !== undefined ? everything.find((e) => e.location.id === inputs.locationId) : undefined;
    if (inputs.locationId !== undefined && !wanted) {
        problems.push(
            `locationId ${inputs.locationId} is not an EDIS location; locations: ${everything.map((e) => describeLocation(e.location)).join(", ")}`,
        );
        throw new OrderCheckError(problems);
    }
    const home = everything.find((e) => e.products.some((p) => p.id === inputs.planId));
    if (!home) {
        const where = wanted ?? everything[0];
        problems.push(
            `planId ${inputs.planId} is not a product at any location` +
                (where ? `; plans at ${describeLocation(where.location)}: ${listPlans(where.products)} (see edis.getPlans())` : ""),
        );
        throw new OrderCheckError(problems);
    }
    if (wanted && home.location.id !== wanted.location.id) {
        problems.push(
            `planId ${inputs.planId} belongs to ${describeLocation(home.location)}, not to ${describeLocation(wanted.location)}; ` +
                `plans there: ${listPlans(wanted.products)}`,
        );
        throw new OrderCheckError(problems);
    }
    const plan = home.products.find((p) => p.id === inputs.planId)!;
    const planName = `plan ${plan.id} (${plan.name})`;

    if (!plan.addons.os.some((a) => a.id === inputs.osId)) {
        problems.push(`osId ${inputs.osId} is not an operating system of ${planName}; allowed: ${listAddons(plan.addons.os)}`);
    }
    for (const [input, { group, label }] of Object.entries(ADDON_INPUTS)) {
        const id = inputs[input as keyof typeof ADDON_INPUTS];
        if (id !== undefined && !plan.addons[group].some((a) => a.id === id)) {
            problems.push(`${input} ${id} is not a ${label} of ${planName}; allowed: ${listAddons(plan.addons[group])}`);
        }
    }
    if (plan.prices[inputs.billingCycle] === undefined) {
        const sold = Object.keys(plan.prices);
        problems.push(`billingCycle "${inputs.billingCycle}" is not sold for ${planName}; sold: ${sold.join(", ") || "none"}`);
    }
    if (problems.length) throw new OrderCheckError(problems);
    return { plan, location: home.location };
}
