/**
 * The pre-order check in `check`, so `pulumi preview` (where a reviewer approves a paid change) reports what `pulumi up`
 * would refuse. A resource with a journalled order is not checked: a changed catalogue must not keep it out of state.
 */
import { isEdisApiError } from "../client/errors";
import { ProviderConfig, describeSetting } from "../config";
import { UNKNOWN } from "../fields";
import { CheckFailure, INPUT_NAMES, KvmServerInputs, inputsOf } from "./inputs";
import { OrderJournal, identityOf } from "../journal";
import { OrderCheckError, checkOrder, listPrice, resolvePaymentMethod } from "./orderCheck";
import { Context } from "../context";
import { diffKvmServer } from "./diff";

let reportedNoCredentials = false;

/** What one deployment (one provider process) orders: the servers (edis:maxNewServers) and their list prices, by resource. */
export interface Ordering {
    servers: Set<string>;
    prices: Map<string, { monthly: number; currency: string }>;
}

/** Failures of the order against the catalogue, by input; throws what no input can mend (credentials, endpoint). */
export async function preflight(
    config: ProviderConfig,
    context: () => Context,
    journal: OrderJournal,
    olds: Record<string, unknown>,
    news: Record<string, unknown>,
    log: (line: string) => void,
    ordering: Ordering,
): Promise<CheckFailure[]> {
    const inputs = inputsOf(news);
    if (inputs.adoptKvmId !== undefined) return [];
    // The engine checks a create with no old inputs: a new server, or the new half of a replacement, checked again. An
    // adopted or imported server has old inputs without a plan, and orders nothing.
    const creates = Object.keys(olds).every((k) => k === "__provider");
    // New, or replaced; an in-place change is checked by the update, and must not block resuming a stopped create.
    const changed = creates || diffKvmServer(olds, news).replaces.length > 0;
    if (!changed) return [];
    if (config.problems.length) throw new Error(`pulumi-edis configuration: ${config.problems.join("; ")}`);
    // Read before anything is checked: a journal that cannot be read stops the order, and preview says so already.
    const identity = identityOf(news);
    if (identity) {
        for (const key of [identity.key, ...identity.aliases]) {
            if (await journal.read(key, "order").catch(unreadable)) return [];
        }
    }
    // Each create is one order of this deployment, counted once per resource.
    if (creates) {
        ordering.servers.add(identity?.key ?? inputs.hostname);
        if (ordering.servers.size > config.maxNewServers) {
            return [
                {
                    property: "hostname",
                    reason:
                        `${inputs.hostname} would be server ${ordering.servers.size} that this deployment orders, and ${describeSetting("maxNewServers")} ` +
                        `allows ${config.maxNewServers}: it is not ordered. For a larger fleet, raise the limit: \`pulumi config set edis:maxNewServers ${Math.max(ordering.servers.size, config.maxNewServers * 2)}\``,
                },
            ];
        }
    }
    // A value not known until the deployment runs (an output of another resource) is checked by create.
    if (INPUT_NAMES.some((n) => (inputs as unknown as Record<string, unknown>)[n] === UNKNOWN)) return [];
    if (!config.email || !config.password) {
        if (!reportedNoCredentials) {
            reportedNoCredentials = true;
            log(
                `note: the order of ${inputs.hostname} was checked for its inputs only: without ${describeSetting("email")} and ` +
                    `${describeSetting("password")} the plan, OS, add-ons, billing cycle and payment method cannot be checked against EDIS's ` +
                    `catalogue (\`pulumi up\` needs them, and checks them before it orders)`,
            );
        }
        return [];
    }
    let method: string;
    try {
        method = resolvePaymentMethod(inputs.paymentMethod, config, `the order of ${inputs.hostname}`);
    } catch (e) {
        return [{ property: "paymentMethod", reason: (e as Error).message }];
    }
    try {
        const { plan } = await checkOrder(context().catalogue, inputs, method);
        const price = creates ? listPrice(plan, inputs) : undefined;
        const limit = config.maxAddedMonthlySpend;
        if (creates && limit && !price) return [{ property: "planId", reason: `${inputs.hostname} cannot be priced, so ${describeSetting("maxAddedMonthlySpend")} refuses it` }];
        if (price) {
            const key = identity?.key ?? inputs.hostname;
            const total = [...ordering.prices].filter(([k, p]) => k !== key && p.currency === price.currency).reduce((sum, [, p]) => sum + p.monthly, price.monthly);
            const over = limit && (limit.currency !== price.currency.toUpperCase() || Math.round(total * 100) > limit.cents);
            if (over) {
                const allowed = `${(limit.cents / 100).toFixed(2)} ${limit.currency}`;
                return [
                    {
                        property: "planId",
                        reason:
                            limit.currency !== price.currency.toUpperCase()
                                ? `${inputs.hostname} is priced in ${price.currency}, and ${describeSetting("maxAddedMonthlySpend")} is ${allowed}: it is not ordered`
                                : `${inputs.hostname} (${price.monthly.toFixed(2)} ${price.currency}/month) would bring what this deployment adds to ${total.toFixed(2)} ` +
                                  `${price.currency}/month, past ${describeSetting("maxAddedMonthlySpend")} (${allowed}): it is not ordered`,
                    },
                ];
            }
            ordering.prices.set(key, price);
            log(`${inputs.hostname}: orders ${price.text}; this deployment adds ${total.toFixed(2)} ${price.currency}/month so far`);
        }
        return [];
    } catch (e) {
        if (e instanceof OrderCheckError) return e.problems.map((reason) => ({ property: propertyOf(reason), reason: withConfigKey(reason, inputs) }));
        if (isEdisApiError(e)) throw new Error(`the order of ${inputs.hostname} could not be checked against EDIS's catalogue, and \`pulumi up\` would stop there too: ${e.message}`);
        throw e;
    }
}

/** The input a problem is about: the word it starts with, when that is an input; else the plan. */
function propertyOf(reason: string): string {
    const first = /^(\w+)/.exec(reason)?.[1] ?? "";
    return (INPUT_NAMES as readonly string[]).includes(first) ? first : "planId";
}

/** A payment method from config is named by its config key, so that the user knows where to change it. */
function withConfigKey(reason: string, inputs: KvmServerInputs): string {
    if (!reason.startsWith("paymentMethod") || inputs.paymentMethod !== undefined) return reason;
    return reason.replace(/^paymentMethod/, `the payment method of ${describeSetting("paymentMethod")}`);
}

function unreadable(e: unknown): never {
    throw new Error(`pulumi-edis: ${(e as Error).message}; nothing can be ordered until the order journal can be read`);
}
