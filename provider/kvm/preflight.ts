/**
 * The pre-order check in `check`, so `pulumi preview` (where a reviewer approves a paid change) reports what `pulumi up`
 * would refuse. A resource with a journalled order is not checked: a changed catalogue must not keep it out of state.
 */
import { isEdisApiError } from "../client/errors";
import { ProviderConfig, describeSetting } from "../config";
import { UNKNOWN } from "../fields";
import { CheckFailure, INPUT_NAMES, KvmServerInputs, inputsOf } from "./inputs";
import { OrderJournal, RESOURCE_KEY, changedTo, identityOf } from "../journal";
import { OrderCheckError, checkOrder, checkUpgrade, currentListPrice, listPrice, resolvePaymentMethod, withoutNoExtraAddons } from "./orderCheck";
import { ListPrice } from "../client/model";
import { Context } from "../context";
import { diffKvmServer, needsUpgrade } from "./diff";

/** What one deployment (one provider process) orders: the servers (edis:maxNewServers) and their list prices, by resource. */
export interface Ordering {
    servers: Set<string>;
    prices: Map<string, { monthly: number; currency: string }>;
}

export interface Deployment {
    config: ProviderConfig;
    context: () => Context;
    journal: OrderJournal;
    log: (line: string) => void;
    ordering: Ordering;
}

/** A change toward edis:maxAddedMonthlySpend: whose, its price, what it adds per month, and what it says under the server. */
interface Spend {
    key: string;
    hostname: string;
    price: (ListPrice & { text: string }) | undefined;
    added: number | undefined;
    says: (price: ListPrice & { text: string }) => string;
    refusal?: string;
}

/** Failures of the order against the catalogue, by input; throws what no input can mend (credentials, endpoint). */
export async function preflight(d: Deployment, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<CheckFailure[]> {
    const { config, context, journal, log, ordering } = d;
    const inputs = inputsOf(news);
    // No old inputs: a create (a new server, or a replacement's new half); an adopted server has them, and no plan.
    const creates = Object.keys(olds).every((k) => k === "__provider");
    // New, or replaced (by the diff's rules: the plan's "no extra" add-on is no change); an in-place change is checked by
    // the update, and must not block resuming a stopped create, but a plan change is checked and priced here too.
    const rawDiff = creates ? undefined : diffKvmServer(olds, news);
    const diff = rawDiff && config.email && config.password ? await withoutNoExtraAddons(() => context().catalogue, olds, rawDiff, news) : rawDiff;
    const replaces = !!diff && diff.replaces.length > 0;
    if (!creates && !replaces) return needsUpgrade(olds, news) ? priceUpgrade(d, inputsOf(olds), inputs, identityOf(news)?.key, olds[RESOURCE_KEY]) : [];
    if (inputs.adoptKvmId !== undefined) return [];
    if (config.problems.length) throw new Error(`pulumi-edis configuration: ${config.problems.join("; ")}`);
    // Read before anything is checked: a journal that cannot be read stops the order, and preview says so already.
    const identity = identityOf(news);
    for (const key of identity ? [identity.key, ...identity.aliases] : []) {
        if (await journal.read(key, "order").catch(unreadable)) return [];
    }
    // Each create is one order of this deployment, counted once per resource; so is a replacement's new half.
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
    // A value not known until the deployment runs (an output of another resource) is checked by create.
    if (INPUT_NAMES.some((n) => (inputs as unknown as Record<string, unknown>)[n] === UNKNOWN)) return [];
    if (!config.email || !config.password) return noCredentials(log);
    let method: string;
    try {
        method = resolvePaymentMethod(inputs.paymentMethod, config, `the order of ${inputs.hostname}`);
    } catch (e) {
        return [{ property: "paymentMethod", reason: (e as Error).message }];
    }
    try {
        const { plan } = await checkOrder(context().catalogue, inputs, method);
        const price = listPrice(plan, inputs);
        const was = replaces ? await currentListPrice(context().catalogue, inputsOf(olds)) : undefined;
        // Until the old half is cancelled (at the end of its billing period, perhaps) both are billed: the new one adds its whole price.
        const replaced = was ? ` (the server it replaces: ${was.monthly.toFixed(2)} ${was.currency}/month)` : "";
        const says = (p: { text: string }) => (replaces ? `is replaced: orders ${p.text}${replaced}` : `orders ${p.text}`);
        return addSpend(d, { key: identity?.key ?? inputs.hostname, hostname: inputs.hostname, price, added: price?.monthly, says });
    } catch (e) {
        if (e instanceof OrderCheckError) return e.problems.map((reason) => ({ property: propertyOf(reason), reason: withConfigKey(reason, inputs) }));
        if (isEdisApiError(e)) throw new Error(`the order of ${inputs.hostname} could not be checked against EDIS's catalogue, and \`pulumi up\` would stop there too: ${e.message}`);
        throw e;
    }
}

/** Counts a change's monthly addition toward edis:maxAddedMonthlySpend; unpriceable ones are refused under a limit. */
function addSpend({ config, ordering, log }: Deployment, { key, hostname, price, added, says, refusal = "it is not ordered" }: Spend): CheckFailure[] {
    const limit = config.maxAddedMonthlySpend;
    const setting = describeSetting("maxAddedMonthlySpend");
    const refuse = (reason: string) => [{ property: "planId", reason }];
    if (!price || added === undefined) return limit ? refuse(`${hostname} cannot be priced, so ${setting} refuses it`) : [];
    const total = [...ordering.prices].filter(([k, p]) => k !== key && p.currency === price.currency).reduce((sum, [, p]) => sum + p.monthly, added);
    if (limit) {
        const allowed = `${(limit.cents / 100).toFixed(2)} ${limit.currency}`;
        if (limit.currency !== price.currency.toUpperCase()) return refuse(`${hostname} is priced in ${price.currency}, and ${setting} is ${allowed}: ${refusal}`);
        if (Math.round(total * 100) > limit.cents) {
            return refuse(
                `${hostname} (${added.toFixed(2)} ${price.currency}/month) would bring what this deployment adds to ${total.toFixed(2)} ${price.currency}/month, past ${setting} (${allowed}): ${refusal}`,
            );
        }
    }
    const seen = ordering.prices.has(key);
    ordering.prices.set(key, { monthly: added, currency: price.currency });
    if (!seen) log(`${hostname}: ${says(price)}; this deployment adds ${total.toFixed(2)} ${price.currency}/month so far`);
    return [];
}

/**
 * A plan or billing-cycle change in place: checked as the update checks it, and priced from the catalogue, old and new;
 * what it adds is the difference (a downgrade adds nothing).
 */
async function priceUpgrade(d: Deployment, olds: KvmServerInputs, news: KvmServerInputs, key: string | undefined, stateKey: unknown): Promise<CheckFailure[]> {
    const { config, context } = d;
    if (!config.email || !config.password) return noCredentials(d.log);
    if ([news.planId, news.billingCycle, news.paymentMethod].some((v) => (v as unknown) === UNKNOWN)) return [];
    if (olds.planId !== undefined && olds.billingCycle !== undefined && !(await journalledAsMade(d.journal, [key, stateKey], olds.planId, news))) {
        let method: string;
        try {
            method = resolvePaymentMethod(news.paymentMethod, config, `changing the plan of ${news.hostname}`);
        } catch (e) {
            return [{ property: "paymentMethod", reason: (e as Error).message }];
        }
        try {
            await checkUpgrade(context().catalogue, news.hostname, olds.planId, news, method);
        } catch (e) {
            if (e instanceof OrderCheckError) return e.problems.map((reason) => ({ property: propertyOf(reason), reason: `${withConfigKey(reason, news)}; its plan is not changed` }));
            if (isEdisApiError(e)) throw new Error(`the plan change of ${news.hostname} could not be checked against EDIS's catalogue, and \`pulumi up\` would stop there too: ${e.message}`);
            throw e;
        }
    }
    const [was, price] = await Promise.all([currentListPrice(context().catalogue, olds), currentListPrice(context().catalogue, news)]);
    const added = price && (was?.currency === price.currency ? Math.max(0, Math.round((price.monthly - was.monthly) * 100) / 100) : price.monthly);
    const change = (p: ListPrice) => (was?.currency === p.currency ? `${p.monthly >= was.monthly ? "+" : "-"}${Math.abs(p.monthly - was.monthly).toFixed(2)} ${p.currency}/month` : "the old price is not known");
    return addSpend(d, { key: key ?? news.hostname, hostname: news.hostname, price, added, says: (p) => `changes to ${p.text} (${change(p)})`, refusal: "its plan is not changed" });
}

/**
 * Whether the journal says EDIS made this change (this resource's, as far as check can tell: it is not told the service).
 * Such a change is not refused by the catalogue (the update, which knows the service, checks any other); it is priced.
 */
async function journalledAsMade(journal: OrderJournal, keys: unknown[], fromPlanId: number, news: KvmServerInputs): Promise<boolean> {
    for (const k of new Set(keys.filter((k): k is string => typeof k === "string"))) {
        const entry = await journal.read(k, "upgrade").catch(unreadable);
        if (entry?.state === "done" && entry.fromPlanId === fromPlanId && changedTo(entry, news.planId, news.billingCycle)) return true;
    }
    return false;
}

/** Said once per deployment (the caller's log is the core's logOnce), not once per server. */
function noCredentials(log: (line: string) => void): CheckFailure[] {
    log(
        `note: orders and plan changes are checked for their inputs only: without ${describeSetting("email")} and ${describeSetting("password")} ` +
            `the plan, OS, add-ons, billing cycle and payment method cannot be checked against EDIS's catalogue, nor priced (\`pulumi up\` ` +
            `needs them, and checks them before it orders)`,
    );
    return [];
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
