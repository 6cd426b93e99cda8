// The specification (shared/000_3cfe71d17a36cd55.txt) as strict schemas, for checking the simulator and the client's
// requests only: the product's tolerant schemas (provider/client/schemas.ts) are written apart so the two cannot drift
// into a dialect together. Part two: the simulator's choices where the spec says "not shown" (simulator/account.ts).
import { z } from "zod";

// ==== Part one: the specification ============================================================================

/** "Success responses carry `status` with the value success." */
const success = z.literal("success");
const integer = z.number().int();
/** "amount: string decimal with two fraction digits" */
const amount = z.string().regex(/^\d+\.\d{2}$/, "a decimal with two fraction digits");
const money = z.strictObject({ amount, currency: z.string().min(1) });

/** Session entry: "Session entry (response of the session endpoint)". */
export const sessionEntry = z.strictObject({
    api_host: z.string().min(1),
    api_rdns: z.string().min(1),
    kvm_id: z.string().min(1),
    valid_until: integer,
    signature: z.string().length(50, "50 characters in the shape given"),
    suspended: z.string().min(1),
    description: z.string(),
    lps: z.string().regex(/^\d{2}$/, "a two-digit code"),
    lps_ispremium: z.boolean(),
});

/** Create session: `data`, an object keyed by KVM id (`kvm_id` equals the key), and `status`. */
export const authAnswer = z.strictObject({
    status: success,
    data: z.record(z.string().min(1), sessionEntry).superRefine((data, ctx) => {
        for (const [key, entry] of Object.entries(data)) {
            if (entry.kvm_id !== key) ctx.addIssue({ code: "custom", path: [key, "kvm_id"], message: `kvm_id must equal the key "${key}"` });
        }
    }),
});

/** Location: keyed by display name; `id` integer, required; `headline` string, "may be absent or an empty string". */
export const location = z.strictObject({ id: integer, headline: z.string().optional() });
export const locationsAnswer = z.strictObject({ status: success, locations: z.record(z.string().min(1), location) });

/** `description` figures: "object {size: integer, unit: string}" with the unit the table names. */
const figure = (unit: string) => z.strictObject({ size: integer, unit: z.literal(unit) });

/** "keys monthly, quarterly, semiannually, annually; each value is {amount, currency}" */
const planPrice = z.strictObject({ monthly: money, quarterly: money, semiannually: money, annually: money });

export const planDescription = z.strictObject({
    disk: figure("GByte"),
    ram: figure("MByte"),
    cpu: figure("core/socket"),
    traffic: figure("TByte"),
    price: planPrice,
});

/** Add-on: `id` integer, required; `description` string, required; `price` `{monthly: {amount, currency}}`, optional. */
export const addon = z.strictObject({ id: integer, description: z.string().min(1), price: z.strictObject({ monthly: money }).optional() });

/** "Group names that occur: operating system, additional ram, additional ip, additional drive boost." */
export const ADDON_GROUP_NAMES = ["operating system", "additional ram", "additional ip", "additional drive boost"] as const;

/** "Each group is an object keyed by the add-on id as a string." */
const addonGroup = z.record(z.string().regex(/^\d+$/, "the add-on id as a string"), addon).superRefine((group, ctx) => {
    for (const [key, a] of Object.entries(group)) {
        if (String(a.id) !== key) ctx.addIssue({ code: "custom", path: [key, "id"], message: `id must equal the key "${key}"` });
    }
});

export const product = z.strictObject({
    id: integer,
    description: planDescription,
    // "The groups present differ per plan": any subset of the names above, and no other name.
    addons: z.partialRecord(z.enum(ADDON_GROUP_NAMES), addonGroup).superRefine((groups, ctx) => {
        // "price ... absent for operating-system add-ons"
        for (const [key, a] of Object.entries(groups["operating system"] ?? {})) {
            if (a.price !== undefined) ctx.addIssue({ code: "custom", path: ["operating system", key, "price"], message: "operating-system add-ons have no price" });
        }
    }),
});
export const productsAnswer = z.strictObject({ status: success, products: z.record(z.string().min(1), product) });

export const orderAnswer = z.strictObject({
    status: success,
    orderid: integer,
    serviceids: z.string().regex(/^\d+(,\d+)*$/, "comma-separated service ids"),
    invoiceid: integer,
    invoicepaid: z.boolean(),
});

/** "add-on id; empty string means none" */
const addonField = z.union([integer, z.literal("")]);

// Order request: which item fields are mandatory is not shown, so each is optional; `additional_driveboost`, the
// second sample item's spelling, is named by the specification and so allowed.
export const orderItem = z.strictObject({
    pid: integer,
    os: integer,
    hostname: z.string().min(1),
    additional_ram: addonField.optional(),
    additional_vcpu: addonField.optional(),
    additional_ip: addonField.optional(),
    additional_diskboost: addonField.optional(),
    additional_driveboost: addonField.optional(),
    ssh_pubkey: z.string().optional(),
});
export const orderDocument = z.strictObject({
    billingcycle: z.enum(["monthly", "quarterly", "semiannually", "annually"]),
    paymentmethod: z.string().min(1),
    applycredit: z.boolean(),
    item: z.array(orderItem).min(1),
});

/** A form field that holds JSON: the value `schema` describes, JSON-encoded. */
const jsonField = (schema: z.ZodType) =>
    z.string().transform((text, ctx) => {
        try {
            return JSON.parse(text) as unknown;
        } catch {
            ctx.addIssue({ code: "custom", message: "must be a JSON-encoded string" });
            return z.NEVER;
        }
    }).pipe(schema);

/** Every request body: "credentials in the body", `email` and `pw`, plus each endpoint's own fields. */
const credentials = { email: z.string().min(1), pw: z.string().min(1) };
const requestBodies: Record<string, z.ZodType> = {
    "get/auth": z.strictObject({ ...credentials, kvm_id: z.string().min(1).optional() }),
    "get/locations": z.strictObject(credentials),
    "get/products": z.strictObject({ ...credentials, location_id: z.string().regex(/^\d+$/) }),
    "add/order": z.strictObject({ ...credentials, order: jsonField(orderDocument) }),
};

// ==== Part two: the simulator's choices where the specification says "not shown" ==========================

const numericString = z.string().regex(/^\d+$/);
const choices: Record<string, z.ZodType> = {
    "get/billingcycles": z.strictObject({ status: success, billingcycles: z.array(z.enum(["monthly", "quarterly", "semiannually", "annually"])).min(1) }),
    "get/paymentmethods": z.strictObject({ status: success, paymentmethods: z.array(z.string().min(1)).min(1) }),
    "get/kvmid": z.strictObject({ status: success, serviceid: integer, kvmid: z.string().regex(/^kvm_\d+_\d+$/).nullable() }),
    "get/serviceid": z.strictObject({ status: success, serviceid: numericString }),
    "cancel/product": z.strictObject({ status: success, serviceid: integer, clientid: integer }),
    "add/upgrade": z.strictObject({
        status: success,
        orderid: numericString,
        serviceid: numericString,
        invoiceid: numericString,
        oldproductname: z.string(),
        newproductname: z.string(),
        oldproductid: numericString,
        newproductid: numericString,
    }),
};

// ==== Part three: the Management API, from the vendor's reference pages (EDIS-API.md, "Management API") ========
// Each answer has the fields the vendor's example shows; where none is shown, the simulator's choice, marked.

const portNumber = z.union([integer, numericString]);
const vncEnabled = z.strictObject({ status: success, vnc_status: z.literal("enabled"), novnc_port: portNumber, vnc_port: portNumber, vnc_host: z.string().min(1) });
const management: Record<string, z.ZodType> = {
    "get/power": z.strictObject({ status: success, data: z.string().min(1), traffic_suspended: z.boolean() }),
    "set/poweron": z.strictObject({ status: success }),
    /** Simulator's choice: the vendor's power-off page shows no answer body beyond `status`. */
    "set/poweroff": z.strictObject({ status: success }),
    /** Simulator's choice for a server without VNC: `vnc_status: "disabled"` and nothing else. */
    "get/vnc/status": z.union([vncEnabled, z.strictObject({ status: success, vnc_status: z.literal("disabled") })]),
    "set/vnc/enable": vncEnabled,
    "set/vnc/disable": z.strictObject({ status: success, msg: z.string().min(1) }),
    "set/ptr": z.strictObject({ status: success, message: z.string().min(1) }),
    "del/ptr": z.strictObject({ status: success }),
    "hooks/set": z.strictObject({ status: success, hook_id: numericString }),
    "hooks/del": z.strictObject({ status: success, message: z.string().min(1) }),
};

/** Management requests carry the session, never `email` or `pw`: a per-server host must not receive them. */
const session = { signature: z.string().length(50), kvm_id: z.string().regex(/^kvm_\d+_\d+$/), valid_until: z.string().regex(/^\d+$/) };
const managementRequests: Record<string, z.ZodType> = {
    "get/power": z.strictObject(session),
    "set/poweron": z.strictObject(session),
    "set/poweroff": z.strictObject(session),
    "get/vnc/status": z.strictObject(session),
    "set/vnc/enable": z.strictObject({ ...session, vnc_pw: z.string().regex(/^[A-Za-z0-9]{8}$/) }),
    "set/vnc/disable": z.strictObject(session),
    "set/ptr": z.strictObject({ ...session, api_host: z.string().min(1), ip: jsonField(z.record(z.string(), z.string().min(1))) }),
    "del/ptr": z.strictObject({ ...session, api_host: z.string().min(1), ip: jsonField(z.array(z.string()).min(1)) }),
    "hooks/set": z.strictObject({
        ...session,
        callback_method: z.enum(["post", "get"]),
        callback_url: z.string().url(),
        type: z.literal("traffic"),
        trigger_value: z.string().regex(/^(\d{1,3}|demo)$/),
        callback_user: z.string().min(1).optional(),
        callback_pw: z.string().min(1).optional(),
    }),
    "hooks/del": z.strictObject({ ...session, id: numericString }),
};

/** Error answers: `{status: "error", message}`; add/order out of stock: `{status: "failed", orderid}`. */
const errorAnswer = z.strictObject({ status: z.literal("error"), message: z.string().min(1) });
const failedOrder = z.strictObject({ status: z.literal("failed"), orderid: integer });
/** "Endpoints are described as answering with HTTP 400, 401 and 404"; a 200 carries a refusal in `status`. */
const ERROR_HTTP_STATUSES = [200, 400, 401, 404];

// ==== the check ==============================================================================================

/** The success answer of each endpoint: the specification's where it shows one, else the simulator's choice. */
export const SUCCESS_ANSWERS: Record<string, z.ZodType> = {
    "get/auth": authAnswer,
    "get/locations": locationsAnswer,
    "get/products": productsAnswer,
    "add/order": orderAnswer,
    ...choices,
    ...management,
};

export interface Exchange {
    endpoint: string;
    httpStatus: number;
    /** The request's fields as the simulator read them. */
    request: Record<string, unknown>;
    body: unknown;
}

function describe(error: z.ZodError): string {
    return error.issues
        .slice(0, 5)
        .map((i) => `${i.path.map(String).join(".") || "(whole)"}: ${i.message}`)
        .join("; ");
}

/** What is wrong with one exchange, measured against the schemas above; empty when nothing is. */
export function conformanceProblems(x: Exchange): string[] {
    const problems: string[] = [];
    const status = (x.body as { status?: unknown } | null)?.status;
    if (status === "success") {
        if (x.httpStatus !== 200) problems.push(`a success answer with HTTP ${x.httpStatus}`);
        const schema = SUCCESS_ANSWERS[x.endpoint];
        if (!schema) problems.push("an endpoint the specification does not name answered success");
        const answer = schema?.safeParse(x.body);
        if (answer && !answer.success) problems.push(`answer: ${describe(answer.error)}`);
        // A request that succeeded must have been one the specification describes.
        const request = (requestBodies[x.endpoint] ?? managementRequests[x.endpoint])?.safeParse(x.request);
        if (request && !request.success) problems.push(`request: ${describe(request.error)}`);
    } else {
        if (!ERROR_HTTP_STATUSES.includes(x.httpStatus)) problems.push(`an error answer with HTTP ${x.httpStatus}`);
        const shape = x.endpoint === "add/order" && status === "failed" ? failedOrder : errorAnswer;
        const answer = shape.safeParse(x.body);
        if (!answer.success) problems.push(`error answer: ${describe(answer.error)}`);
    }
    return problems.map((p) => `${x.endpoint} (HTTP ${x.httpStatus}) ${p}`);
}
