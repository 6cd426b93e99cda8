/**
 * The wire schemas: every answer of the EDIS API is parsed here into the types of `model.ts`.
 *
 * The shapes the user's interface specification shows (shared/000_3cfe71d17a36cd55.txt) are the path these
 * schemas are written for; each schema below names the shape it reads.
 *
 * They are tolerant only where the specification and EDIS-API.md leave things open, and in ways that cannot make a
 * specified answer mean something else: ids as numbers or numeric strings, PHP's `[]` for an empty map, an id at top
 * level or under `data` where answers are not shown, WHMCS-style "-1.00" for a cycle not sold. They are strict about
 * what the provider relies on: a product without an id is an error that names the endpoint and the path. The strict
 * transcription of the specification, which checks the simulator, is a separate file (test/spec/specSchemas.ts).
 */
import { z } from "zod";
import {
    Addon,
    AddonGroups,
    BILLING_CYCLES,
    CancelResult,
    KvmListing,
    KvmSession,
    Location,
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
import { idsInValue } from "./namedIds";
import { withhold } from "./withhold";

const numericString = z.string().trim().regex(/^\d+$/, "expected a whole number");
/** An id that arrives as 123 or "123". */
export const wireId = z.union([z.number().int().nonnegative(), numericString]).transform(Number);
const optionalId = z.union([wireId, z.literal(""), z.null()]).optional().transform((v) => (typeof v === "number" ? v : undefined));
const wireBool = z
    .union([z.boolean(), z.number(), z.string()])
    .transform((v) => v === true || v === 1 || (typeof v === "string" && /^(1|true|yes|y|paid)$/i.test(v.trim())));
const wireText = z.union([z.string(), z.number()]).transform(String);

/** An object keyed by display name or id, as every map here is; PHP's json_encode writes an empty one as `[]`, read as empty. */
function keyedBy<T extends z.ZodType>(value: T) {
    return z.union([z.record(z.string(), value), z.tuple([]).transform((): Record<string, z.output<T>> => ({}))]);
}

// ---- money and figures: the specification's `{amount, currency}` and `{size, unit}` ----------------------

/** An amount as "12.50" (the specification's form) or 12.5; negative (WHMCS's "-1.00") means "not sold". */
const wireAmount = z.union([z.string().trim().regex(/^-?\d+(\.\d+)?$/, "expected a decimal amount"), z.number()]).transform((v) => {
    const n = Number(v);
    return n >= 0 ? n.toFixed(2) : undefined;
});
const wireMoney = z.object({ amount: wireAmount, currency: z.string().trim().min(1).optional() });

/**
 * A price table `{<cycle>: {amount, currency}}` (a plan's `description.price`, four cycles; an add-on's `price`, monthly
 * only). Keys that are not cycles are ignored, `semi-annually` is `semiannually`; the currency is the first one named.
 */
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

/** A whole number as 40 or "40" (the specification says integer; ids arrive in both forms elsewhere). */
const wireCount = z.union([z.number().nonnegative(), z.string().trim().regex(/^\d+(\.\d+)?$/, "expected a number").transform(Number)]);
const wireFigure = z.object({ size: wireCount, unit: z.string() });
type Figure = z.output<typeof wireFigure>;

const SIZE_PREFIXES = { k: 1, m: 2, g: 3, t: 4, p: 5 } as const;

/**
 * A figure in the unit asked for, from "MByte", "GByte", "TByte" (the specification's units) or MB, GB, GiB, ... `base`
 * is 1024 for RAM (2048 MByte is 2 GByte of RAM), 1000 for disk and traffic, as hosting catalogues count them. A unit
 * that is not a byte size gives undefined: the filters then say the figure is unknown rather than use a wrong one.
 */
function bytesIn(figure: Figure | undefined, target: keyof typeof SIZE_PREFIXES, base: number): number | undefined {
    const prefix = figure && /^\s*([kmgtp])(?:i?b|byte)s?\s*$/i.exec(figure.unit)?.[1].toLowerCase();
    if (!figure || !prefix) return undefined;
    const steps = SIZE_PREFIXES[prefix as keyof typeof SIZE_PREFIXES] - SIZE_PREFIXES[target];
    return Math.round(figure.size * base ** steps * 1000) / 1000;
}

/** CPU as "core/socket" (the specification's unit), "cores", "vCPU", ...; another unit gives undefined. */
function coresIn(figure: Figure | undefined): number | undefined {
    return figure && /^\s*(v?cpu|v?cores?)(\/socket)?s?\s*$/i.test(figure.unit) ? figure.size : undefined;
}

// ---- add-ons ---------------------------------------------------------------------------------------------

/** One add-on: `{id, description, price?}`; `price` is absent for operating systems and "no extra" entries. */
const wireAddon = z.object({ id: wireId.optional(), description: wireText, price: wirePriceTable.optional() });

/** An add-on group: add-ons keyed by their id as a string. */
const wireAddonGroup = keyedBy(wireAddon).transform((group, ctx): Addon[] => {
    const out: Addon[] = [];
    for (const [key, addon] of Object.entries(group)) {
        const id = addon.id ?? (/^\d+$/.test(key) ? Number(key) : undefined);
        if (id === undefined) {
            ctx.addIssue({ code: "custom", message: `add-on "${addon.description}" has no numeric id`, path: [key] });
            return z.NEVER;
        }
        out.push({ id, name: addon.description, prices: addon.price?.prices ?? {}, currency: addon.price?.currency, ...(addon.price === undefined ? { unpriced: true } : {}) });
    }
    return out;
});

/**
 * Group names, compared without case, spaces, "_" or "-": the specification's, the order item's field names, and
 * `additional vcpu`, which the order item names but no answer the specification shows does.
 */
const GROUP_ALIASES: Record<string, keyof Omit<AddonGroups, "other">> = {
    operatingsystem: "os",
    os: "os",
    additionalram: "ram",
    additionalvcpu: "vcpu",
    additionalip: "ip",
    additionaldriveboost: "diskBoost",
    additionaldiskboost: "diskBoost",
};

/** The add-on group a name means, in any of the spellings above (`"additional ram"`, `"ram"`, `"additional_ram"`). */
export function addonGroupNamed(name: string): keyof Omit<AddonGroups, "other"> | undefined {
    const key = name.toLowerCase().replace(/[\s_-]/g, "");
    return GROUP_ALIASES[key] ?? (["ram", "vcpu", "ip", "diskboost"].includes(key) ? (key === "diskboost" ? "diskBoost" : (key as "ram" | "vcpu" | "ip")) : undefined);
}

const wireAddonGroups = keyedBy(wireAddonGroup).transform((raw): AddonGroups => {
    const groups: AddonGroups = { os: [], ram: [], vcpu: [], ip: [], diskBoost: [], other: {} };
    for (const [wireName, addons] of Object.entries(raw)) {
        const known = GROUP_ALIASES[wireName.toLowerCase().replace(/[\s_-]/g, "")];
        if (known) groups[known].push(...addons);
        else groups.other[wireName] = addons;
    }
    return groups;
});

// ---- answers, one schema per endpoint ------------------------------------------------------------------

/** A location: `{id, headline?}`; `name`, `country` and `out_of_stock` are what one third-party client saw. */
const wireLocation = z.object({
    id: wireId,
    headline: z.string().nullish(),
    name: z.string().optional(),
    country: z.string().nullish(),
    out_of_stock: wireBool.optional(),
});

/** get/locations: `locations` keyed by display name. */
export const locationsAnswer = z.object({ locations: keyedBy(wireLocation) }).transform(({ locations }): Location[] =>
    Object.entries(locations).map(([key, l]) => ({
        id: l.id,
        name: key,
        headline: l.headline || undefined,
        country: l.country ?? undefined,
        outOfStock: l.out_of_stock,
    })),
);

/** A plan's `description`: four figures and the price table. */
const wirePlanDescription = z.object({
    disk: wireFigure.optional(),
    ram: wireFigure.optional(),
    cpu: wireFigure.optional(),
    traffic: wireFigure.optional(),
    price: wirePriceTable.optional(),
});

/** A plan. No stock field is specified; `out_of_stock` (or WHMCS's `stockcontrol` and `qty`) lets a sold-out plan be refused before ordering. */
const wireProduct = z.object({
    id: wireId,
    description: wirePlanDescription,
    addons: wireAddonGroups.optional(),
    out_of_stock: wireBool.optional(),
    stockcontrol: wireBool.optional(),
    qty: wireCount.optional(),
});

/** get/products: `products` keyed by the plan's display name. */
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

/**
 * add/order: `{status, orderid, serviceids: "1003,1004", invoiceid, invoicepaid}` as the specification shows it; ids in
 * any shape (namedIds.ts), because a service id the client cannot read is a billed server that no state holds.
 */
export const orderAnswer = z.looseObject({ invoicepaid: wireBool.optional() }).transform((body): OrderResult => {
    const ids = idsInValue(body);
    return { orderId: ids.orderIds[0], serviceIds: ids.serviceIds, invoiceId: ids.invoiceIds[0], invoicePaid: body.invoicepaid ?? false };
});

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
    // Kept as text: it goes back to the Management API exactly as written (see unixSeconds for reading it).
    valid_until: z.union([z.number().int().nonnegative().transform(String), z.string().trim().min(1)]).optional(),
    signature: z.string(),
    suspended: z.union([z.string(), z.boolean()]).optional(),
    description: z.string().nullish(),
    lps: optionalText,
    lps_ispremium: wireBool.optional(),
});

/** A session's expiry in Unix seconds: the specification's integer, or an ISO date (the vendor's pages); else unknown. */
function unixSeconds(v: string | undefined): number | undefined {
    if (v === undefined) return undefined;
    if (/^\d+$/.test(v)) return Number(v);
    const ms = Date.parse(v);
    return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

/**
 * get/auth: `data` keyed by KVM id, each entry read on its own: one that cannot be read is kept as unreadable, under
 * the ids it names (its key, which the specification says is its KVM id, and its `kvm_id`), and affects only that KVM.
 */
export const authAnswer = z
    // `data` is required (the specification's shape): an answer without it is not a listing that lacks a server.
    .object({ data: keyedBy(z.unknown()) })
    .transform(({ data }): KvmListing => {
        const listing: KvmListing = { sessions: [], unreadable: [] };
        for (const [key, raw] of Object.entries(data)) {
            const read = wireSession.safeParse(raw);
            if (read.success) listing.sessions.push(sessionOf(key, read.data));
            else {
                const field = (name: string) => (raw && typeof raw === "object" && typeof (raw as Record<string, unknown>)[name] === "string" ? [(raw as Record<string, string>)[name]] : []);
                listing.unreadable.push({ kvmIds: [key, ...field("kvm_id")], problem: withhold(describeIssues(read.error)), signatures: field("signature") });
            }
        }
        return listing;
    });

function sessionOf(key: string, s: z.output<typeof wireSession>): KvmSession {
    return {
            kvmId: s.kvm_id ?? key,
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

/** The error text a body carries, under any of the names the API family uses. */
export function serverMessageOf(body: unknown): string | undefined {
    if (!body || typeof body !== "object") return undefined;
    const b = body as Record<string, unknown>;
    for (const key of ["message", "msg", "error", "result"]) {
        const v = b[key];
        if (typeof v === "string" && v.trim()) return v.trim();
    }
    return undefined;
}

type Issue = { path: PropertyKey[]; message: string; code?: string; errors?: Issue[][] };

/** Where an answer went wrong: a union reports only "Invalid input"; its branch that got furthest tells the real path. */
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

// ==== Management API (EDIS-API.md, "Management API"; the vendor's reference pages) ============================
// Its answers are documented by example only, so these schemas are tolerant of the spellings the examples
// leave open (ports as numbers or strings, ids as numbers or strings) and strict about what the provider acts on.

/** "server powered on": the only wording documented. The "off" wording is not, so any of the usual words counts. */
export function powerStateOf(text: string): PowerState | undefined {
    if (/\b(powered\s+off|off|stopped|shut\s*down|shutoff|halted|not\s+running)\b/i.test(text)) return "off";
    if (/\b(powered\s+on|on|running|started|online)\b/i.test(text)) return "on";
    return undefined;
}

const looseBoolean = z.union([z.boolean(), z.literal(0), z.literal(1), z.enum(["true", "false", "0", "1", "yes", "no"])]).transform(
    (v) => v === true || v === 1 || v === "true" || v === "1" || v === "yes",
);

/** get/power: `{status, data: "server powered on", traffic_suspended: false}`. */
export const powerAnswer = z
    .object({ data: z.string(), traffic_suspended: looseBoolean.optional() })
    .transform(({ data, traffic_suspended }, ctx): PowerStatus => {
        const state = powerStateOf(data);
        if (!state) {
            ctx.addIssue({ code: "custom", path: ["data"], message: `"${data.slice(0, 80)}" does not say whether the server is on or off` });
            return z.NEVER;
        }
        return { state, text: data, trafficSuspended: traffic_suspended };
    });

const wirePort = z.union([z.number().int().positive(), z.string().regex(/^\d+$/).transform(Number)]);

/** get/vnc/status and set/vnc/enable: `{status, vnc_status: "enabled", novnc_port, vnc_port, vnc_host}`. */
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

/** hooks/set: `{status, hook_id: "123"}`. */
export const hookAnswer = z.object({ hook_id: wireId }).transform(({ hook_id }) => hook_id);

/** Answers whose only documented content is `status` (and a message). */
export const acknowledged = z.object({}).passthrough().transform(() => undefined);
