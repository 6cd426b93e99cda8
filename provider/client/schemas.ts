/**
 * The wire schemas: every answer of the EDIS API is parsed here into the types of `model.ts`.
 *
 * The public documentation leaves several shapes open (see shared EDIS-API notes), so these schemas are
 * deliberately tolerant in the places it names: ids as numbers or numeric strings, maps or lists, an id at top
 * level or under `data`, WHMCS-style "-1.00" for a billing cycle that is not sold. They are strict about what
 * the provider relies on: a product without an id, or an order answer without an order id, is an error that
 * names the endpoint and the path.
 */
import { z } from "zod";
import {
    Addon,
    AddonGroups,
    BILLING_CYCLES,
    CancelResult,
    KvmSession,
    Location,
    OrderResult,
    PaymentMethod,
    Prices,
    Product,
    UpgradeResult,
    normalizeBillingCycle,
} from "./model";

const numericString = z.string().trim().regex(/^\d+$/, "expected a whole number");
/** An id that arrives as 123 or "123". */
export const wireId = z.union([z.number().int().nonnegative(), numericString]).transform(Number);
const optionalId = z.union([wireId, z.literal(""), z.null()]).optional().transform((v) => (typeof v === "number" ? v : undefined));
const wireBool = z
    .union([z.boolean(), z.number(), z.string()])
    .transform((v) => v === true || v === 1 || (typeof v === "string" && /^(1|true|yes|y|paid)$/i.test(v.trim())));
const wireText = z.union([z.string(), z.number()]).transform(String);

/** A price as "12.50", 12.5 or "12.5"; negative (WHMCS's "-1.00") means "not sold in this cycle". */
const wirePrice = z.union([z.string(), z.number()]).transform((v) => {
    const n = typeof v === "number" ? v : Number(v.trim());
    return Number.isFinite(n) && n >= 0 ? n.toFixed(2) : undefined;
});

const wirePricing = z
    .record(z.string(), z.unknown())
    .optional()
    .transform((raw) => {
        const prices: Prices = {};
        let currency: string | undefined;
        for (const [key, value] of Object.entries(raw ?? {})) {
            if (key === "currency" || key === "currency_code") {
                if (typeof value === "string") currency = value;
                continue;
            }
            const cycle = normalizeBillingCycle(key);
            const price = wirePrice.safeParse(value);
            if (cycle && price.success && price.data !== undefined) prices[cycle] = price.data;
        }
        return { prices, currency };
    });

const wireAddon = z.union([
    z.string().transform((name) => ({ name, pricing: undefined, id: undefined })),
    z.object({ id: wireId.optional(), name: wireText, pricing: wirePricing, price: wirePricing }).transform((a) => ({
        id: a.id,
        name: a.name,
        pricing: Object.keys(a.pricing.prices).length ? a.pricing : a.price,
    })),
]);

/** An add-on group as `{ "<id>": {name, pricing} }`, `{ "<id>": "name" }` or `[{id, name, pricing}]`. */
const wireAddonGroup = z
    .union([z.array(wireAddon), z.record(z.string(), wireAddon)])
    .transform((group, ctx): Addon[] => {
        const entries: Array<[string | undefined, z.output<typeof wireAddon>]> = Array.isArray(group)
            ? group.map((a) => [undefined, a])
            : Object.entries(group);
        const out: Addon[] = [];
        for (const [key, addon] of entries) {
            const id = addon.id ?? (key !== undefined && /^\d+$/.test(key) ? Number(key) : undefined);
            if (id === undefined) {
                ctx.addIssue({ code: "custom", message: `add-on "${addon.name}" has no numeric id` });
                return z.NEVER;
            }
            out.push({ id, name: addon.name, prices: addon.pricing?.prices ?? {} });
        }
        return out;
    });

/** Wire group names: the order document's field names, plus the spellings other clients have seen. */
const GROUP_ALIASES: Record<string, keyof Omit<AddonGroups, "other">> = {
    os: "os",
    operatingsystem: "os",
    operating_system: "os",
    additional_ram: "ram",
    ram: "ram",
    additional_vcpu: "vcpu",
    vcpu: "vcpu",
    additional_ip: "ip",
    ip: "ip",
    additional_diskboost: "diskBoost",
    additional_driveboost: "diskBoost",
    diskboost: "diskBoost",
};

const wireAddonGroups = z
    .record(z.string(), wireAddonGroup)
    .optional()
    .transform((raw): AddonGroups => {
        const groups: AddonGroups = { os: [], ram: [], vcpu: [], ip: [], diskBoost: [], other: {} };
        for (const [wireName, addons] of Object.entries(raw ?? {})) {
            const known = GROUP_ALIASES[wireName.toLowerCase()];
            if (known) groups[known].push(...addons);
            else groups.other[wireName] = addons;
        }
        return groups;
    });

/**
 * Reads the figures a plan's description states, in the forms WHMCS-style descriptions use:
 * "2 vCPU Cores", "4096 MB RAM" / "4 GB RAM", "40 GB SSD", "10 TB Traffic" / "Unmetered".
 */
export function parsePlanFigures(description: string): Pick<Product, "cpu" | "ramMb" | "diskGb" | "trafficTb"> {
    const text = description.replace(/<[^>]*>/g, " ");
    const num = (s: string) => Number(s.replace(",", "."));
    const cpu = /(\d+)\s*(?:x\s*)?v?(?:cpu|core|vcore)s?/i.exec(text);
    const ram = /(\d+(?:[.,]\d+)?)\s*(MB|GB|GiB|MiB)\s*(?:of\s+)?(?:ddr\d?\s*)?(?:ram|memory)/i.exec(text);
    const disk = /(\d+(?:[.,]\d+)?)\s*(GB|TB|GiB|TiB)\s*(?:nvme|ssd|hdd|disk|storage)/i.exec(text);
    const traffic = /(\d+(?:[.,]\d+)?)\s*(GB|TB)\s*(?:of\s+)?(?:traffic|bandwidth|transfer)/i.exec(text);
    return {
        cpu: cpu ? Number(cpu[1]) : undefined,
        ramMb: ram ? Math.round(num(ram[1]) * (/^g/i.test(ram[2]) ? 1024 : 1)) : undefined,
        diskGb: disk ? num(disk[1]) * (/^t/i.test(disk[2]) ? 1000 : 1) : undefined,
        trafficTb: traffic ? num(traffic[1]) / (/^g/i.test(traffic[2]) ? 1000 : 1) : undefined,
    };
}

// ---- answers, one schema per endpoint ------------------------------------------------------------------

const wireLocation = z.object({
    id: wireId,
    name: z.string().optional(),
    headline: z.string().nullish(),
    country: z.string().nullish(),
    out_of_stock: wireBool.optional(),
});

export const locationsAnswer = z
    .object({ locations: z.union([z.record(z.string(), wireLocation), z.array(wireLocation)]) })
    .transform(({ locations }): Location[] => {
        const entries = Array.isArray(locations)
            ? locations.map((l) => [l.name ?? String(l.id), l] as const)
            : Object.entries(locations);
        return entries.map(([key, l]) => ({
            id: l.id,
            name: l.name ?? key,
            headline: l.headline ?? undefined,
            country: l.country ?? undefined,
            outOfStock: l.out_of_stock,
        }));
    });

const wireProduct = z.object({
    id: wireId,
    name: z.string().optional(),
    description: z.string().nullish(),
    pricing: wirePricing,
    price: wirePricing,
    currency: z.string().optional(),
    addons: wireAddonGroups,
});

export function productsAnswer(locationId: number) {
    return z
        .object({ products: z.union([z.record(z.string(), wireProduct), z.array(wireProduct), z.tuple([])]) })
        .transform(({ products }): Product[] => {
            const entries = Array.isArray(products)
                ? products.map((p) => [p.name ?? String(p.id), p] as const)
                : Object.entries(products);
            return entries.map(([key, p]) => {
                const pricing = Object.keys(p.pricing.prices).length ? p.pricing : p.price;
                const description = p.description ?? "";
                return {
                    id: p.id,
                    name: p.name ?? key,
                    locationId,
                    description,
                    ...parsePlanFigures(`${p.name ?? key} ${description}`),
                    currency: pricing.currency ?? p.currency ?? "EUR",
                    prices: pricing.prices,
                    addons: p.addons,
                };
            });
        });
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
        if (cycles.length === 0) {
            ctx.addIssue({ code: "custom", message: "no billing cycle names found", path: ["billingcycles"] });
            return z.NEVER;
        }
        return BILLING_CYCLES.filter((c) => cycles.includes(c));
    });

const wirePaymentMethod = z.union([
    z.string().transform((id) => ({ id, name: id })),
    z
        .object({ module: z.string().optional(), id: z.string().optional(), displayname: z.string().optional(), name: z.string().optional() })
        .refine((m) => m.module ?? m.id, "payment method without module or id")
        .transform((m) => ({ id: (m.module ?? m.id)!, name: m.displayname ?? m.name ?? (m.module ?? m.id)! })),
]);

/** get/paymentmethods: `[string]`, WHMCS's `{paymentmethod: [{module, displayname}]}`, or `{module: name}`. */
export const paymentMethodsAnswer = z
    .object({
        paymentmethods: z.union([
            z.array(wirePaymentMethod),
            z.object({ paymentmethod: z.array(wirePaymentMethod) }).transform((o) => o.paymentmethod),
            z.record(z.string(), z.string()).transform((m) => Object.entries(m).map(([id, name]) => ({ id, name }))),
        ]),
    })
    .transform(({ paymentmethods }): PaymentMethod[] => paymentmethods);

const serviceIdList = z.union([
    z.number().int().transform((n) => [n]),
    z.string().transform((s, ctx) => {
        const parts = s.split(",").map((p) => p.trim()).filter(Boolean);
        if (!parts.every((p) => /^\d+$/.test(p))) {
            ctx.addIssue({ code: "custom", message: `not a list of service ids: "${s}"` });
            return z.NEVER;
        }
        return parts.map(Number);
    }),
    z.array(wireId),
]);

export const orderAnswer = z
    .object({ orderid: wireId, serviceids: serviceIdList, invoiceid: optionalId, invoicepaid: wireBool.optional() })
    .transform((o): OrderResult => ({
        orderId: o.orderid,
        serviceIds: o.serviceids,
        invoiceId: o.invoiceid,
        invoicePaid: o.invoicepaid ?? false,
    }));

/** Finds an id at top level or under `data`, under any of the given names; undefined when absent or empty. */
function tolerantId<T extends z.ZodType>(names: string[], value: T) {
    return z.looseObject({}).transform((body, ctx): z.output<T> | undefined => {
        const scopes = [body, body.data].filter((s): s is Record<string, unknown> => !!s && typeof s === "object");
        for (const scope of scopes) {
            for (const name of names) {
                const raw = scope[name];
                if (raw === undefined || raw === null || raw === "" || raw === 0) continue;
                const parsed = value.safeParse(raw);
                if (parsed.success) return parsed.data;
                ctx.addIssue({ code: "custom", message: `unusable ${name}: ${JSON.stringify(raw)}`, path: [name] });
                return z.NEVER;
            }
        }
        return undefined;
    });
}

const kvmIdValue = z.union([z.string().trim().min(1), z.number().transform(String)]);
/** get/kvmid: the KVM id of a service, or undefined while it is not provisioned. */
export const kvmIdAnswer = tolerantId(["kvmid", "kvm_id"], kvmIdValue);
/** get/serviceid: the service id of a KVM, or undefined when the answer carries none. */
export const serviceIdAnswer = tolerantId(["serviceid", "service_id"], wireId);

export const cancelAnswer = z
    .looseObject({ serviceid: optionalId, clientid: optionalId })
    .transform((c): CancelResult => ({ serviceId: c.serviceid, clientId: c.clientid }));

const optionalText = z.union([z.string(), z.number()]).nullish().transform((v) => (v == null ? undefined : String(v)));
export const upgradeAnswer = z
    .looseObject({
        orderid: optionalId,
        serviceid: optionalId,
        invoiceid: optionalId,
        oldproductname: optionalText,
        newproductname: optionalText,
        oldproductid: optionalId,
        newproductid: optionalId,
    })
    .transform(
        (u): UpgradeResult => ({
            orderId: u.orderid,
            serviceId: u.serviceid,
            invoiceId: u.invoiceid,
            oldProductName: u.oldproductname,
            newProductName: u.newproductname,
            oldProductId: u.oldproductid,
            newProductId: u.newproductid,
        }),
    );

const wireSession = z.object({
    api_host: z.string(),
    api_rdns: z.string().nullish(),
    kvm_id: z.string().optional(),
    valid_until: wireId.optional(),
    signature: z.string(),
    suspended: z.union([z.string(), z.boolean()]).optional(),
    description: z.string().nullish(),
    lps: optionalText,
    lps_ispremium: wireBool.optional(),
});

/** get/auth: `data` keyed by KVM id; PHP encodes an empty map as `[]`, so that is accepted too. */
export const authAnswer = z
    .object({ data: z.union([z.record(z.string(), wireSession), z.tuple([])]).optional() })
    .transform(({ data }): KvmSession[] =>
        Object.entries(Array.isArray(data) || !data ? {} : data).map(([key, s]) => ({
            kvmId: s.kvm_id ?? key,
            apiHost: s.api_host,
            apiRdns: s.api_rdns ?? undefined,
            validUntil: s.valid_until,
            signature: s.signature,
            // The seed documents "n" for not suspended and "another letter" otherwise.
            suspended: typeof s.suspended === "boolean" ? s.suspended : !!s.suspended && !/^n/i.test(s.suspended),
            description: s.description ?? undefined,
            lps: s.lps,
            lpsIsPremium: s.lps_ispremium,
        })),
    );

/** The error text a body carries, under any of the names the API family uses. */
export function serverMessageOf(body: unknown): string | undefined {
    if (!body || typeof body !== "object") return undefined;
    const b = body as Record<string, unknown>;
    for (const key of ["message", "msg", "error", "result"]) {
        const v = b[key];
        if (typeof v === "string" && v.trim()) return v.trim().slice(0, 500);
    }
    return undefined;
}

type Issue = { path: PropertyKey[]; message: string; code?: string; errors?: Issue[][] };

/**
 * The issues that say where an answer went wrong. A union (ids as number or string, maps or lists) reports
 * only "Invalid input" at its own level; the branch that got furthest into the answer tells the real path.
 */
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

/** Describes the first problems of a failed parse as "path: message", for the error text. */
export function describeIssues(error: z.ZodError, max = 3): string {
    return deepestIssues(error.issues as unknown as Issue[])
        .slice(0, max)
        .map((i) => `${i.path.length ? i.path.map(String).join(".") : "(answer)"}: ${i.message}`)
        .join("; ");
}
