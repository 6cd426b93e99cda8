/** Every EDIS answer parsed into model.ts types: tolerant only where the specification leaves things open. */
import { z } from "zod";
import {
    Addon,
    AddonGroupName,
    AddonGroups,
    BILLING_CYCLES,
    CancelResult,
    KvmListing,
    KvmSession,
    LocationListing,
    OrderResult,
    PaymentMethod,
    PowerState,
    PowerStatus,
    Prices,
    Product,
    UpgradeResult,
    VncStatus,
    normalizeBillingCycle,
} from "./model";
import { idsInAnswer } from "./namedIds";
import { secretInValue, withhold } from "./withhold";

const matching = (pattern: RegExp, message: string) => z.string().trim().regex(pattern, message);
const numericString = matching(/^\d+$/, "expected a whole number");
export const wireId = z.union([z.number().int().nonnegative(), numericString]).transform(Number);
const optionalId = z.union([wireId, z.literal(""), z.null()]).optional().transform((v) => (typeof v === "number" ? v : undefined));
const wireBool = z
    .union([z.boolean(), z.number(), z.string()])
    .transform((v) => v === true || v === 1 || (typeof v === "string" && /^(1|true|yes|y|paid)$/i.test(v.trim())));
const wireText = z.union([z.string(), z.number()]).transform(String);

function refuse(ctx: z.RefinementCtx, path: PropertyKey[], message: string): never {
    ctx.addIssue({ code: "custom", message, path });
    return z.NEVER;
}

/** PHP's json_encode writes an empty map as `[]`. */
function keyedBy<T extends z.ZodType>(value: T) {
    return z.union([z.record(z.string(), value), z.tuple([]).transform((): Record<string, z.output<T>> => ({}))]);
}

/** Negative (WHMCS's "-1.00") means "not sold". */
const wireAmount = z.union([matching(/^-?\d+(\.\d+)?$/, "expected a decimal amount"), z.number()]).transform((v) => {
    const n = Number(v);
    return n >= 0 ? Math.round(n * 100) / 100 : undefined;
});
const wireMoney = z.object({ amount: wireAmount, currency: z.string().trim().min(1).optional() });

/** `{<cycle>: {amount, currency}}`; keys that are not cycles are ignored; the currency is the first one named. */
const wirePriceTable = z.record(z.string(), z.unknown()).transform((raw, ctx) => {
    const prices: Prices = {};
    let currency: string | undefined;
    for (const [key, value] of Object.entries(raw)) {
        const cycle = normalizeBillingCycle(key);
        if (!cycle) continue;
        const money = wireMoney.safeParse(value);
        if (!money.success) {
            for (const issue of money.error.issues) ctx.addIssue({ ...issue, path: [key, ...issue.path] } as never);
            return z.NEVER;
        }
        if (money.data.amount !== undefined) prices[cycle] = money.data.amount;
        currency ??= money.data.currency;
    }
    return { prices, currency };
});

const wireCount = z.union([z.number().nonnegative(), matching(/^\d+(\.\d+)?$/, "expected a number").transform(Number)]);
const wireFigure = z.object({ size: wireCount, unit: z.string() });
type Figure = z.output<typeof wireFigure>;

const SIZE_PREFIXES = { k: 1, m: 2, g: 3, t: 4, p: 5 } as const;

/** `base` is 1024 for RAM, 1000 for disk and traffic; a unit that is not a byte size gives unknown, not a wrong figure. */
function bytesIn(figure: Figure | undefined, target: keyof typeof SIZE_PREFIXES, base: number): number | undefined {
    const prefix = figure && /^\s*([kmgtp])(?:i?b|byte)s?\s*$/i.exec(figure.unit)?.[1].toLowerCase();
    if (!figure || !prefix) return undefined;
    const steps = SIZE_PREFIXES[prefix as keyof typeof SIZE_PREFIXES] - SIZE_PREFIXES[target];
    return Math.round(figure.size * base ** steps * 1000) / 1000;
}

function coresIn(figure: Figure | undefined): number | undefined {
    return figure && /^\s*(v?cpu|v?cores?)(\/socket)?s?\s*$/i.test(figure.unit) ? figure.size : undefined;
}

const wireAddon = z.object({ id: wireId.optional(), description: wireText, price: wirePriceTable.optional() });

const wireAddonGroup = keyedBy(wireAddon).transform((group, ctx): Addon[] => {
    const out: Addon[] = [];
    for (const [key, addon] of Object.entries(group)) {
        const id = addon.id ?? (/^\d+$/.test(key) ? Number(key) : undefined);
        if (id === undefined) return refuse(ctx, [key], `add-on "${addon.description}" has no numeric id`);
        out.push({ id, name: addon.description, prices: addon.price?.prices ?? {}, currency: addon.price?.currency, ...(addon.price === undefined ? { unpriced: true } : {}) });
    }
    return out;
});

/** Group names, compared without case, spaces, "_" or "-". */
const GROUP_ALIASES: Record<string, keyof Omit<AddonGroups, "other">> = {
    operatingsystem: "os",
    os: "os",
    additionalram: "ram",
    additionalvcpu: "vcpu",
    additionalip: "ip",
    additionaldriveboost: "diskBoost",
    additionaldiskboost: "diskBoost",
};

const groupKey = (name: string) => name.toLowerCase().replace(/[\s_-]/g, "");
const OWN_NAMES: Record<string, AddonGroupName> = { ram: "ram", vcpu: "vcpu", ip: "ip", diskboost: "diskBoost" };

/** A group by the API's name or by the lookups' own (`ram`, `diskBoost`, ...). */
export function addonGroupNamed(name: string): keyof Omit<AddonGroups, "other"> | undefined {
    return ownValue(GROUP_ALIASES, groupKey(name)) ?? ownValue(OWN_NAMES, groupKey(name));
}

/** A table's own entry: a name such as "constructor" is no group, not Object's prototype. */
function ownValue<V>(table: Record<string, V>, key: string): V | undefined {
    return Object.hasOwn(table, key) ? table[key] : undefined;
}

const wireAddonGroups = keyedBy(wireAddonGroup).transform((raw): AddonGroups => {
    // `other` has no prototype: a group named "__proto__" is a group, not the object's prototype.
    const groups: AddonGroups = { os: [], ram: [], vcpu: [], ip: [], diskBoost: [], other: Object.create(null) };
    for (const [wireName, addons] of Object.entries(raw)) {
        const known = ownValue(GROUP_ALIASES, groupKey(wireName));
        if (known) groups[known].push(...addons);
        else groups.other[wireName] = addons;
    }
    return groups;
});

/** `name`, `country` and `out_of_stock` are what one third-party client saw. */
const wireLocation = z.object({
    id: wireId,
    headline: z.string().nullish(),
    name: z.string().optional(),
    country: z.string().nullish(),
    out_of_stock: wireBool.optional(),
});

export const locationsAnswer = z.object({ locations: keyedBy(z.unknown()) }).transform(({ locations }): LocationListing => {
    const listing: LocationListing = { locations: [], unreadable: [] };
    for (const [key, raw] of Object.entries(locations)) {
        const read = wireLocation.safeParse(raw);
        // As a get/auth entry: one that holds a credential is unreadable, and affects only what may be there.
        if (!read.success) listing.unreadable.push(`${withhold(key)} (${withhold(describeIssues(read.error))})`);
        else if (secretInValue({ key, raw })) listing.unreadable.push(`${withhold(key)} (it holds a secret)`);
        else listing.locations.push({ id: read.data.id, name: key, headline: read.data.headline || undefined, country: read.data.country ?? undefined, outOfStock: read.data.out_of_stock });
    }
    return listing;
});

const wirePlanDescription = z.object({
    disk: wireFigure.optional(),
    ram: wireFigure.optional(),
    cpu: wireFigure.optional(),
    traffic: wireFigure.optional(),
    price: wirePriceTable.optional(),
});

/** No stock field is specified; these let a sold-out plan be refused before ordering. */
const wireProduct = z.object({
    id: wireId,
    description: wirePlanDescription,
    addons: wireAddonGroups.optional(),
    out_of_stock: wireBool.optional(),
    stockcontrol: wireBool.optional(),
    qty: wireCount.optional(),
});

export function productsAnswer(locationId: number) {
    return z.object({ products: keyedBy(wireProduct) }).transform(({ products }): Product[] =>
        Object.entries(products).map(([name, p]) => ({
            id: p.id,
            name,
            locationId,
            cpu: coresIn(p.description.cpu),
            ramMb: bytesIn(p.description.ram, "m", 1024),
            diskGb: bytesIn(p.description.disk, "g", 1000),
            trafficTb: bytesIn(p.description.traffic, "t", 1000),
            currency: p.description.price?.currency ?? "EUR",
            prices: p.description.price?.prices ?? {},
            addons: p.addons ?? { os: [], ram: [], vcpu: [], ip: [], diskBoost: [], other: {} },
            outOfStock: p.out_of_stock || (p.stockcontrol === true && p.qty === 0) || undefined,
        })),
    );
}

/** get/billingcycles is undocumented: a list, or a map whose keys or values are cycle names. */
export const billingCyclesAnswer = z
    .looseObject({})
    .transform((body, ctx) => {
        const raw = body.billingcycles ?? body.billingcycle ?? body.cycles ?? body.data;
        const names: string[] = Array.isArray(raw)
            ? raw.filter((v): v is string => typeof v === "string")
            : raw && typeof raw === "object"
              ? Object.entries(raw).flatMap(([k, v]) => [k, typeof v === "string" ? v : ""])
              : [];
        const cycles = [...new Set(names.map(normalizeBillingCycle).filter((c) => c !== undefined))];
        if (cycles.length === 0) return refuse(ctx, ["billingcycles"], "no billing cycle names found");
        return BILLING_CYCLES.filter((c) => cycles.includes(c));
    });

const wirePaymentMethod = z.union([
    z.string().transform((id) => ({ id, name: id })),
    z
        .object({ module: z.string().optional(), id: z.string().optional(), displayname: z.string().optional(), name: z.string().optional() })
        .refine((m) => m.module ?? m.id, "payment method without module or id")
        .transform((m) => ({ id: (m.module ?? m.id)!, name: m.displayname ?? m.name ?? (m.module ?? m.id)! })),
]);

export const paymentMethodsAnswer = z
    .object({
        paymentmethods: z.union([
            z.array(wirePaymentMethod),
            z.object({ paymentmethod: z.array(wirePaymentMethod) }).transform((o) => o.paymentmethod),
            z.record(z.string(), z.string()).transform((m) => Object.entries(m).map(([id, name]) => ({ id, name }))),
        ]),
    })
    .transform(({ paymentmethods }): PaymentMethod[] => paymentmethods);

/** Ids in any shape: a service id the client cannot read is a billed server that no state holds. */
export const orderAnswer = z.looseObject({ invoicepaid: wireBool.optional() }).transform((body, ctx): OrderResult => {
    // The reader of a failed answer's ids, so that a success and a failure of the same body record the same services.
    const { fields: ids, placed } = idsInAnswer(JSON.stringify(body));
    if (!placed) return refuse(ctx, ["serviceids"], "no readable service id");
    return { orderId: ids.orderIds[0], serviceIds: ids.serviceIds, placed, invoiceId: ids.invoiceIds[0], invoicePaid: body.invoicepaid ?? false };
});

/** An id at top level or under `data`, under any of the names. */
function tolerantId<T extends z.ZodType>(names: string[], value: T) {
    return z.looseObject({}).transform((body, ctx): z.output<T> | undefined => {
        const scopes = [body, body.data].filter((s): s is Record<string, unknown> => !!s && typeof s === "object");
        for (const scope of scopes) {
            for (const name of names) {
                const raw = scope[name];
                if (raw === undefined || raw === null || raw === "" || raw === 0) continue;
                const parsed = value.safeParse(raw);
                if (parsed.success) return parsed.data;
                return refuse(ctx, [name], `unusable ${name}: ${JSON.stringify(raw)}`);
            }
        }
        return undefined;
    });
}

const kvmIdValue = z.union([z.string().trim().min(1), z.number().transform(String)]);
export const kvmIdAnswer = tolerantId(["kvmid", "kvm_id"], kvmIdValue);
export const serviceIdAnswer = tolerantId(["serviceid", "service_id"], wireId);

export const cancelAnswer = z.looseObject({ serviceid: optionalId }).transform((c): CancelResult => ({ serviceId: c.serviceid }));

export const upgradeAnswer = z
    .looseObject({ orderid: optionalId, serviceid: optionalId, invoiceid: optionalId })
    .transform((u): UpgradeResult => ({ orderId: u.orderid, serviceId: u.serviceid, invoiceId: u.invoiceid }));

const optionalText = wireText.nullish().transform((v) => v ?? undefined);
const wireSession = z.object({
    api_host: z.string(),
    api_rdns: z.string().nullish(),
    kvm_id: z.string(),
    // Text: it goes back to the Management API exactly as written.
    valid_until: z.union([z.number().int().nonnegative().transform(String), z.string().trim().min(1)]).optional(),
    signature: z.string(),
    suspended: z.union([z.string(), z.boolean()]).optional(),
    description: z.string().nullish(),
    lps: optionalText,
    lps_ispremium: wireBool.optional(),
});

function unixSeconds(v: string | undefined): number | undefined {
    if (v === undefined) return undefined;
    if (/^\d+$/.test(v)) return Number(v);
    const ms = Date.parse(v);
    return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

/** Each entry read on its own: one that cannot be read is kept as unreadable and affects only that KVM. */
export const authAnswer = z
    // Required: an answer without `data` is not a listing that lacks a server.
    .object({ data: keyedBy(z.unknown()) })
    .transform(({ data }): KvmListing => {
        const listing: KvmListing = { sessions: [], unreadable: [] };
        for (const [key, raw] of Object.entries(data)) {
            const read = wireSession.safeParse(raw);
            const kvmId = (raw as Record<string, unknown> | null)?.kvm_id;
            // The specification: kvm_id "equals the key of the entry". One without it, or another, tells no KVM for sure.
            const agrees = kvmId === key;
            // A secret in the key or kvm_id: no KVM is told by the entry. Elsewhere: only its own KVM is affected.
            const secretId = !!secretInValue({ key, kvmId });
            const secret = secretId || (read.success && !!secretInValue(read.data));
            if (read.success && agrees && !secret) listing.sessions.push(sessionOf(key, read.data));
            else {
                // Kept to be withheld; one that holds a credential needs no keeping (the credential is withheld already).
                const field = (name: string) => [(raw as Record<string, unknown> | null)?.[name]].filter((v): v is string => typeof v === "string" && !secretInValue(v));
                const problem = !read.success ? withhold(describeIssues(read.error)) : secret ? "it holds a secret" : "its kvm_id is not the entry's key";
                listing.unreadable.push({ kvmIds: secretId ? [] : [key, ...field("kvm_id")], identified: agrees && !secretId, problem, signatures: field("signature") });
            }
        }
        return listing;
    });

function sessionOf(key: string, s: z.output<typeof wireSession>): KvmSession {
    return {
            kvmId: key,
            apiHost: s.api_host,
            apiRdns: s.api_rdns ?? undefined,
            validUntil: unixSeconds(s.valid_until),
            validUntilText: s.valid_until,
            signature: s.signature,
            // The seed documents "n" for not suspended and "another letter" otherwise.
            suspended: typeof s.suspended === "boolean" ? s.suspended : !!s.suspended && !/^n/i.test(s.suspended),
            description: s.description ?? undefined,
            lps: s.lps,
            lpsIsPremium: s.lps_ispremium,
    };
}

export function serverMessageOf(body: Record<string, unknown>): string | undefined {
    for (const v of [body.message, body.msg, body.error, body.result]) if (typeof v === "string" && v.trim()) return v.trim();
    return undefined;
}

type Issue = { path: PropertyKey[]; message: string; code?: string; errors?: Issue[][] };

/** A union reports only "Invalid input"; its branch that got furthest tells the real path. */
function deepestIssues(issues: Issue[], prefix: PropertyKey[] = []): Issue[] {
    return issues.flatMap((issue) => {
        const path = [...prefix, ...issue.path];
        if (issue.code === "invalid_union" && issue.errors?.length) {
            const branches = issue.errors.map((branch) => deepestIssues(branch, path));
            const depth = (b: Issue[]) => Math.max(0, ...b.map((i) => i.path.length));
            return branches.reduce((best, b) => (depth(b) > depth(best) ? b : best));
        }
        return [{ ...issue, path }];
    });
}

export function describeIssues(error: z.ZodError, max = 3): string {
    return deepestIssues(error.issues as unknown as Issue[])
        .slice(0, max)
        .map((i) => `${i.path.length ? i.path.map(String).join(".") : "(answer)"}: ${i.message}`)
        .join("; ");
}

// Management API: answers documented by example only.

/** Only "server powered on" is documented, so any of the usual "off" words counts. */
export function powerStateOf(text: string): PowerState | undefined {
    if (/\b(powered\s+off|off|stopped|shut\s*down|shutoff|halted|not\s+running)\b/i.test(text)) return "off";
    if (/\b(powered\s+on|on|running|started|online)\b/i.test(text)) return "on";
    return undefined;
}

const looseBoolean = z.union([z.boolean(), z.literal(0), z.literal(1), z.enum(["true", "false", "0", "1", "yes", "no"])]).transform(
    (v) => v === true || v === 1 || v === "true" || v === "1" || v === "yes",
);

export const powerAnswer = z
    .object({ data: z.string(), traffic_suspended: looseBoolean.optional() })
    .transform(({ data, traffic_suspended }, ctx): PowerStatus => {
        const state = powerStateOf(data);
        if (!state) return refuse(ctx, ["data"], `"${data.slice(0, 80)}" does not say whether the server is on or off`);
        return { state, text: data, trafficSuspended: traffic_suspended };
    });

const wirePort = z.union([z.number().int().positive(), z.string().regex(/^\d+$/).transform(Number)]);

export const vncAnswer = z
    .object({
        vnc_status: z.string().optional(),
        vnc_host: z.string().nullish(),
        vnc_port: wirePort.nullish(),
        novnc_port: wirePort.nullish(),
    })
    .transform((a): VncStatus => ({
        // Only "enabled" is documented; an answer with a port and no status word is taken as enabled too.
        enabled: a.vnc_status !== undefined ? /^(enabled?|on|active|true|1)$/i.test(a.vnc_status.trim()) : a.vnc_port != null,
        host: a.vnc_host ?? undefined,
        port: a.vnc_port ?? undefined,
        novncPort: a.novnc_port ?? undefined,
    }));

export const hookAnswer = z.object({ hook_id: wireId }).transform(({ hook_id }) => hook_id);

export const acknowledged = z.looseObject({}).transform(() => undefined);
