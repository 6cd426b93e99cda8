/** The catalogue lookups, as both doors serve them (the doors add the account's settings, the SDK its Output forms). */
import { Addon, AddonGroupName, BillingCycle, Location, PaymentMethod, Product, WireAddonGroupName, normalizeBillingCycle } from "../client/model";
import { addonGroupNamed } from "../client/schemas";
import { LookupAccount, LookupError } from "./account";

/** A plan (product) at one location, with its add-ons. */
export interface Plan extends Product {}
/** An add-on, a location and a payment method as the lookups return them (see their fields' comments). */
export type { Addon, Location, PaymentMethod };

/** The result of getLocations. */
export interface GetLocationsResult {
    /** Every EDIS location, in the API's order. */
    locations: Location[];
}

/** Every location: id, name and headline. */
export async function getLocations(account: LookupAccount): Promise<GetLocationsResult> {
    return { locations: await account.catalogue.locations() };
}

/** The arguments of getLocation: a name, an id, or both. */
export interface GetLocationArgs {
    /** The location's name, case-insensitive: the whole name ("Frankfurt, Germany") or its city ("frankfurt"). */
    name?: string;
    /** The location's id. */
    id?: number;
}

/** One location by name or id; when none matches, the error lists the available names. */
export async function getLocation(account: LookupAccount, args: GetLocationArgs): Promise<Location> {
    if (args.name === undefined && args.id === undefined) throw new LookupError("getLocation", "give a name or an id");
    const { locations, unreadable } = await account.catalogue.locationListing();
    const wanted = args.name?.trim().toLowerCase();
    const found = locations.find(
        (l) =>
            (args.id === undefined || l.id === args.id) &&
            (wanted === undefined || l.name.toLowerCase() === wanted || l.name.split(",")[0].trim().toLowerCase() === wanted),
    );
    if (!found) {
        const asked = [args.name !== undefined ? `name "${args.name}"` : "", args.id !== undefined ? `id ${args.id}` : ""];
        throw new LookupError("getLocation", `no location with ${asked.filter(Boolean).join(" and ")}; available: ${locations.map((l) => `"${l.name}" (id ${l.id})`).join(", ")}${unreadableNote(unreadable)}`);
    }
    return found;
}

/** What a plan must offer; every filter left out accepts any plan. */
export interface PlanFilters {
    /** At least this many vCPU cores. */
    minCpu?: number;
    /** At least this much RAM, in MB. */
    minRamMb?: number;
    /** At least this much disk, in GB. */
    minDiskGb?: number;
    /** At least this much monthly traffic, in TB. */
    minTrafficTb?: number;
    /** At most this price in `billingCycle` (in the plan's currency). */
    maxPrice?: number;
    /** The cycle prices are compared and sorted in; default `monthly`. Plans not sold in it are left out. */
    billingCycle?: BillingCycle | "semi-annually";
    /** Only plans whose name matches this regular expression (case-insensitive). */
    nameRegex?: string;
}

/** The arguments of getPlans: a location and the filters. */
export interface GetPlansArgs extends PlanFilters {
    /** The location to look in (see getLocation). */
    locationId: number;
}

/** The result of getPlans. */
export interface GetPlansResult {
    /** The plans that match, cheapest first in the chosen billing cycle. */
    plans: Plan[];
}

async function plansAt(account: LookupAccount, lookup: string, locationId: number): Promise<Plan[]> {
    const { locations, unreadable } = await account.catalogue.locationListing();
    if (!locations.some((l) => l.id === locationId)) {
        throw new LookupError(lookup, `no location with id ${locationId}; available: ${locations.map((l) => `${l.id} (${l.name})`).join(", ")}${unreadableNote(unreadable)}`);
    }
    return account.catalogue.products(locationId);
}

function unreadableNote(unreadable: string[]): string {
    return unreadable.length ? `; whether it is among the entries that could not be read cannot be told: ${unreadable.join("; ")}` : "";
}

function cycleOf(lookup: string, value: string | undefined): BillingCycle {
    const cycle = normalizeBillingCycle(value ?? "monthly");
    if (!cycle) throw new LookupError(lookup, `billingCycle "${value}" is not one of monthly, quarterly, semiannually, annually`);
    return cycle;
}

function regexOf(lookup: string, pattern: string | undefined): RegExp | undefined {
    if (pattern === undefined) return undefined;
    try {
        return new RegExp(pattern, "i");
    } catch (e) {
        throw new LookupError(lookup, `nameRegex "${pattern}" is not a valid regular expression: ${(e as Error).message}`);
    }
}

/** What keeps a plan from the filters, each gap a fraction of its limit: 4 GB short of 8 is nearer than 7 GB short. */
function shortfalls(plan: Plan, f: PlanFilters, cycle: BillingCycle, nameRegex?: RegExp) {
    const out: Array<{ text: string; gap: number }> = [];
    const short = (text: string, gap: number) => out.push({ text, gap });
    const atLeast = (label: string, value: number | undefined, min: number | undefined) => {
        if (min !== undefined && (value === undefined || value < min)) short(`${label} ${value ?? "unknown"} < ${min}`, value === undefined ? 1 : (min - value) / min);
    };
    atLeast("cpu", plan.cpu, f.minCpu);
    atLeast("ramMb", plan.ramMb, f.minRamMb);
    atLeast("diskGb", plan.diskGb, f.minDiskGb);
    atLeast("trafficTb", plan.trafficTb, f.minTrafficTb);
    const price = plan.prices[cycle];
    const max = f.maxPrice === undefined ? undefined : Number(f.maxPrice);
    if (price === undefined) short(`not sold ${cycle}`, 1);
    else if (max !== undefined && price > max) short(`price ${price.toFixed(2)} > ${f.maxPrice}`, (price - max) / Math.max(max, 0.01));
    if (nameRegex && !nameRegex.test(plan.name)) short(`name does not match /${nameRegex.source}/`, 1);
    return out;
}

function byPrice(cycle: BillingCycle) {
    return (a: Plan, b: Plan) => (a.prices[cycle] ?? Infinity) - (b.prices[cycle] ?? Infinity) || a.id - b.id;
}

function describePlan(p: Plan, cycle: BillingCycle): string {
    return `${p.name} (id ${p.id}: ${p.cpu ?? "?"} vCPU, ${p.ramMb ?? "?"} MB RAM, ${p.diskGb ?? "?"} GB disk, ${p.trafficTb ?? "?"} TB traffic, ${p.prices[cycle]?.toFixed(2) ?? "not sold"} ${p.currency} ${cycle})`;
}

/** The plans of a location that satisfy the filters, cheapest first. */
export async function getPlans(account: LookupAccount, args: GetPlansArgs): Promise<GetPlansResult> {
    const cycle = cycleOf("getPlans", args.billingCycle);
    const nameRegex = regexOf("getPlans", args.nameRegex);
    const plans = await plansAt(account, "getPlans", args.locationId);
    return { plans: plans.filter((p) => shortfalls(p, args, cycle, nameRegex).length === 0).sort(byPrice(cycle)) };
}

/** The arguments of getPlan: a location, and a name or the filters. */
export interface GetPlanArgs extends GetPlansArgs {
    /** The plan's exact name, case-insensitive (e.g. "KVM M"); otherwise the cheapest plan that satisfies the filters. */
    name?: string;
}

/** The named plan, or the cheapest that satisfies the filters; when none does, the error lists the nearest. */
export async function getPlan(account: LookupAccount, args: GetPlanArgs): Promise<Plan> {
    const cycle = cycleOf("getPlan", args.billingCycle);
    const nameRegex = regexOf("getPlan", args.nameRegex);
    const plans = await plansAt(account, "getPlan", args.locationId);
    if (args.name !== undefined) {
        const named = plans.find((p) => p.name.toLowerCase() === args.name!.trim().toLowerCase());
        if (!named) {
            throw new LookupError("getPlan", `no plan named "${args.name}" at location ${args.locationId}; plans there: ${plans.map((p) => `"${p.name}"`).join(", ")}`);
        }
        return named;
    }
    const scored = plans.map((p) => ({ p, missing: shortfalls(p, args, cycle, nameRegex) }));
    const distance = (s: (typeof scored)[number]) => s.missing.reduce((sum, m) => sum + m.gap, 0);
    const fitting = scored.filter((s) => s.missing.length === 0).map((s) => s.p);
    if (fitting.length) return fitting.sort(byPrice(cycle))[0];
    const nearest = scored
        .sort((a, b) => distance(a) - distance(b) || byPrice(cycle)(a.p, b.p))
        .slice(0, 3)
        .map((s) => `${describePlan(s.p, cycle)}: ${s.missing.map((m) => m.text).join(", ")}`);
    throw new LookupError("getPlan", `no plan at location ${args.locationId} satisfies the filters; nearest: ${nearest.join("; ")}`);
}

/** A plan at a location, as the operating-system and add-on lookups take it. */
export interface PlanRef {
    /** The plan's location. */
    locationId: number;
    /** The plan's id (see getPlan). */
    planId: number;
}

async function planOf(account: LookupAccount, lookup: string, ref: PlanRef): Promise<Plan> {
    const plans = await plansAt(account, lookup, ref.locationId);
    const plan = plans.find((p) => p.id === ref.planId);
    if (!plan) throw new LookupError(lookup, `no plan with id ${ref.planId} at location ${ref.locationId}; plans there: ${plans.map((p) => `${p.id} (${p.name})`).join(", ")}`);
    return plan;
}

/** The result of getOperatingSystems. */
export interface GetOperatingSystemsResult {
    /** The operating systems the plan can be ordered with. */
    operatingSystems: Addon[];
}

/** The operating-system add-ons of a plan. */
export async function getOperatingSystems(account: LookupAccount, args: PlanRef): Promise<GetOperatingSystemsResult> {
    return { operatingSystems: (await planOf(account, "getOperatingSystems", args)).addons.os };
}

/** The arguments of getOperatingSystem: the plan and a pattern on the name. */
export interface GetOperatingSystemArgs extends PlanRef {
    /** A regular expression (case-insensitive) on the name, e.g. "^Debian" or "Ubuntu 24". */
    nameRegex: string;
}

/** "Debian 12 (64bit)" -> [12]: the version numbers of a name, without the architecture. */
function versionOf(name: string): number[] {
    return (name.replace(/\b(32|64)[- ]?bit\b|\bx(86_)?64\b|\bamd64\b/gi, "").match(/\d+/g) ?? []).map(Number);
}

function compareVersions(a: number[], b: number[]): number {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
        const d = (a[i] ?? -1) - (b[i] ?? -1);
        if (d) return d;
    }
    return 0;
}

/** The plan's operating system that matches, with the highest version (Debian 12 over Debian 11). */
export async function getOperatingSystem(account: LookupAccount, args: GetOperatingSystemArgs): Promise<Addon> {
    const regex = regexOf("getOperatingSystem", args.nameRegex)!;
    const all = (await planOf(account, "getOperatingSystem", args)).addons.os;
    const matches = all.filter((os) => regex.test(os.name));
    if (!matches.length) {
        throw new LookupError("getOperatingSystem", `no operating system of plan ${args.planId} matches /${regex.source}/i; available: ${all.map((o) => `"${o.name}"`).join(", ")}`);
    }
    return matches.sort((a, b) => compareVersions(versionOf(b.name), versionOf(a.name)))[0];
}

/** The arguments of getAddon: the plan, the group and a pattern on the name. */
export interface GetAddonArgs extends PlanRef {
    /** Which add-on group: `ram`, `vcpu`, `ip` or `diskBoost`, or the API's own name (`"additional ram"`, ...). */
    group: AddonGroupName | WireAddonGroupName;
    /** A regular expression (case-insensitive) that must match exactly one add-on of the group. */
    nameRegex: string;
}

/** The result of getAddon: one add-on of a plan. */
export interface GetAddonResult {
    /** The add-on id, for KvmServer's additionalRamId, additionalVcpuId, additionalIpId or diskBoostId. */
    id: number;
    /** The add-on's label, e.g. "+1024 MB RAM". */
    name: string;
    /** The group it was found in. */
    group: AddonGroupName;
    /** The monthly list price, in `currency`; absent when the add-on has no price (the "no extra" entry). */
    monthlyPrice?: number;
    /** The currency of the prices. */
    currency: string;
    /** Prices in every cycle it is sold in. */
    prices: Addon["prices"];
}

/** One add-on of a plan by group and name; it is an error when the pattern matches none or several. */
export async function getAddon(account: LookupAccount, args: GetAddonArgs): Promise<GetAddonResult> {
    const group = typeof args.group === "string" ? addonGroupNamed(args.group) : undefined;
    if (!group || group === "os") {
        throw new LookupError("getAddon", `group "${args.group}" is not one of ram, vcpu, ip, diskBoost (or the API's names: "additional ram", "additional vcpu", "additional ip", "additional drive boost"); operating systems: getOperatingSystem()`);
    }
    const regex = regexOf("getAddon", args.nameRegex)!;
    const plan = await planOf(account, "getAddon", args);
    const all = plan.addons[group];
    const matches = all.filter((a) => regex.test(a.name));
    if (matches.length !== 1) {
        const what = matches.length ? `matches ${matches.length} add-ons (${matches.map((a) => `"${a.name}"`).join(", ")}); make it match one` : "matches nothing";
        throw new LookupError("getAddon", `/${regex.source}/i in group ${group} of plan ${plan.id} ${what}; available: ${all.map((a) => `${a.id} "${a.name}"`).join(", ") || "none"}`);
    }
    const [{ id, name, prices, currency }] = matches;
    return { id, name, group, monthlyPrice: prices.monthly, currency: currency ?? plan.currency, prices };
}

/** The result of getBillingCycles. */
export interface GetBillingCyclesResult {
    /** The billing cycles the account can order in. */
    billingCycles: BillingCycle[];
}

/** The billing cycles the account can order in (`get/billingcycles`). */
export async function getBillingCycles(account: LookupAccount): Promise<GetBillingCyclesResult> {
    return { billingCycles: await account.catalogue.billingCycles() };
}

/** The result of getPaymentMethods. */
export interface GetPaymentMethodsResult {
    /** The account's payment methods; `id` is what KvmServer's paymentMethod takes. */
    paymentMethods: PaymentMethod[];
}

/** The account's payment methods (`get/paymentmethods`); an `id` is what KvmServer's paymentMethod takes. */
export async function getPaymentMethods(account: LookupAccount): Promise<GetPaymentMethodsResult> {
    return { paymentMethods: await account.catalogue.paymentMethods() };
}
