/** KvmServer inputs, their offline validation (`check`, on every preview and up), and the outputs type; no network here. */
import { BILLING_CYCLES, BillingCycle, CANCELLATION_TYPES, CancellationType, KvmSession, ListPrice, PowerState, normalizeBillingCycle } from "../client/model";
import { CheckFailure, FieldRule, UNKNOWN, Validator, checkFields, compact, show } from "../fields";
import { RESOURCE_KEY } from "../journal";

export { UNKNOWN, compact };
export type { CheckFailure };

export interface KvmServerInputs {
    planId: number;
    osId: number;
    hostname: string;
    locationId?: number;
    billingCycle: BillingCycle;
    paymentMethod?: string;
    applyCredit: boolean;
    additionalRamId?: number;
    additionalVcpuId?: number;
    additionalIpId?: number;
    diskBoostId?: number;
    sshPublicKey?: string;
    cancellationType?: CancellationType;
    provisioningTimeoutSeconds?: number;
    adoptKvmId?: string;
    powerState?: PowerState;
    replaceOnPlanChange?: boolean;
}

export interface KvmServerOutputs extends KvmServerInputs {
    [RESOURCE_KEY]?: string;
    /** A batched server's batch, until its KVM's description confirms its place (batchCheck.ts). */
    [ORDER_BATCH]?: string;
    serviceId: number;
    kvmId?: string;
    orderId?: number;
    invoiceId?: number;
    invoicePaid?: boolean;
    apiHost?: string;
    apiRdns?: string;
    description?: string;
    suspended?: boolean;
    lps?: string;
    lpsIsPremium?: boolean;
    trafficSuspended?: boolean;
    /** The last refresh did not list the server and EDIS did not confirm it gone: kept in state, shown as a change. */
    notListed?: boolean;
    listPrice?: ListPrice;
}

export const NOT_LISTED = "notListed";

export const ORDER_BATCH = "__orderBatch";

export const OUTPUT_ONLY_NAMES = [
    "serviceId",
    "kvmId",
    "orderId",
    "invoiceId",
    "invoicePaid",
    "apiHost",
    "apiRdns",
    "description",
    "suspended",
    "lps",
    "lpsIsPremium",
    "trafficSuspended",
    "notListed",
    "listPrice",
] as const satisfies ReadonlyArray<Exclude<keyof KvmServerOutputs, keyof KvmServerInputs>>;

export const ADDON_INPUTS = {
    additionalRamId: { group: "ram", label: "RAM add-on" },
    additionalVcpuId: { group: "vcpu", label: "vCPU add-on" },
    additionalIpId: { group: "ip", label: "IP add-on" },
    diskBoostId: { group: "diskBoost", label: "disk boost add-on" },
} as const;

const positiveId: Validator = (v) => {
    const n = typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
    return typeof n === "number" && Number.isInteger(n) && n > 0
        ? { value: n }
        : { error: `must be a positive whole number (an id from the edis lookups), got ${show(v)}` };
};

export const hostname: Validator = (v) => {
    if (typeof v !== "string") return { error: `must be a string, got ${show(v)}` };
    const labels = v.split(".");
    const bad = labels.find((l) => !/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i.test(l));
    if (v.length > 253 || bad !== undefined) {
        return {
            error:
                `"${v}" is not an RFC 1123 host name: use letters, digits and hyphens in dot-separated labels of 1 to 63 ` +
                `characters that do not start or end with a hyphen, 253 characters in all (for example "web-1.example.com")`,
        };
    }
    return { value: v };
};

/** Whether two host names name the same host: without case (RFC 4343) and, for a description EDIS wrote, surrounding blanks or a final dot. */
export function sameHostname(a: string, b: string): boolean {
    const key = (h: string) => h.trim().replace(/\.$/, "").toLowerCase();
    return key(a) === key(b);
}

const billingCycle: Validator = (v) => {
    const cycle = typeof v === "string" ? normalizeBillingCycle(v) : undefined;
    return cycle
        ? { value: cycle }
        : { error: `must be one of ${BILLING_CYCLES.map((c) => `"${c}"`).join(", ")} ("semi-annually" is accepted too), got ${show(v)}` };
};

const oneOf =
    (values: readonly unknown[], what: string): Validator =>
    (v) =>
        values.includes(v) ? { value: v } : { error: `must be ${what}, got ${show(v)}` };

const cancellationType = oneOf(CANCELLATION_TYPES, `"Immediate" or "End of Billing Period"`);

const nonEmptyString: Validator = (v) =>
    typeof v === "string" && v.trim() !== "" ? { value: v.trim() } : { error: `must be a non-empty string, got ${show(v)}` };

const bool = oneOf([true, false], "true or false");

const timeoutSeconds: Validator = (v) =>
    typeof v === "number" && Number.isFinite(v) && v >= 1 && v <= 86_400
        ? { value: v }
        : { error: `must be a number of seconds from 1 to 86400, got ${show(v)}` };

export const kvmId: Validator = (v) =>
    typeof v === "string" && /^[A-Za-z0-9_-]{3,64}$/.test(v)
        ? { value: v }
        : { error: `must be a KVM id such as "kvm_123456_789012" (see edis.getKvmSessions()), got ${show(v)}` };

const SSH_KEY_TYPES = [
    "ssh-ed25519",
    "ssh-rsa",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ssh-ed25519@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
];

/** An OpenSSH public key line: "<type> <base64 blob> [comment]", whose blob starts with its own type. */
const sshPublicKey: Validator = (v) => {
    const expected = `an OpenSSH public key line such as "ssh-ed25519 AAAAC3Nza... user@host" (types: ${SSH_KEY_TYPES.join(", ")})`;
    if (typeof v !== "string") return { error: `must be ${expected}, got ${show(v)}` };
    const line = v.trim();
    if (/[\r\n]/.test(line)) return { error: `must be a single key on one line; ${expected}` };
    if (/PRIVATE KEY/.test(line)) return { error: `looks like a private key; never put a private key here. It must be ${expected}` };
    const [type, blob] = line.split(/\s+/);
    if (!SSH_KEY_TYPES.includes(type)) return { error: `has key type "${type ?? ""}"; it must be ${expected}` };
    if (!blob || !/^[A-Za-z0-9+/]+={0,2}$/.test(blob)) return { error: `has no valid base64 key data; it must be ${expected}` };
    const bytes = Buffer.from(blob, "base64");
    const len = bytes.length >= 4 ? bytes.readUInt32BE(0) : -1;
    if (len <= 0 || bytes.length < 4 + len || bytes.subarray(4, 4 + len).toString("latin1") !== type) {
        return { error: `has key data that does not encode a ${type} key (truncated or pasted wrongly); it must be ${expected}` };
    }
    return { value: line };
};

const powerState = oneOf(["on", "off"], `"on" or "off" (leave it unset to not manage power)`);

const RULES: Record<keyof KvmServerInputs, FieldRule> = {
    planId: { required: true, validate: positiveId },
    osId: { required: true, validate: positiveId },
    hostname: { required: true, validate: hostname },
    locationId: { validate: positiveId },
    billingCycle: { validate: billingCycle, default: "monthly" },
    paymentMethod: { validate: nonEmptyString },
    applyCredit: { validate: bool, default: true },
    additionalRamId: { validate: positiveId },
    additionalVcpuId: { validate: positiveId },
    additionalIpId: { validate: positiveId },
    diskBoostId: { validate: positiveId },
    sshPublicKey: { validate: sshPublicKey },
    cancellationType: { validate: cancellationType },
    provisioningTimeoutSeconds: { validate: timeoutSeconds },
    adoptKvmId: { validate: kvmId },
    powerState: { validate: powerState },
    replaceOnPlanChange: { validate: bool },
};

/** Every input, in the order diffs and errors list them. */
export const INPUT_NAMES = Object.keys(RULES) as ReadonlyArray<keyof KvmServerInputs>;

/** Facts an adopted server may leave out (EDIS never reports them); their first values are recorded, never ordered. */
export const OPTIONAL_WHEN_ADOPTED = ["planId", "osId", "hostname"] as const;

const ADOPTED_RULES: Record<keyof KvmServerInputs, FieldRule> = {
    ...RULES,
    ...Object.fromEntries(OPTIONAL_WHEN_ADOPTED.map((n) => [n, { ...RULES[n], required: false }])),
    // EDIS does not report the billing cycle either: a default would be a guess, and stating the true one would order an upgrade.
    billingCycle: { validate: RULES.billingCycle.validate },
};

/** Validates and normalizes inputs; `olds` keep a server adopted once after the program removes `adoptKvmId`. */
export function checkInputs(news: Record<string, unknown>, olds: Record<string, unknown> = {}): { inputs: Record<string, unknown>; failures: CheckFailure[] } {
    const adopted = [news.adoptKvmId, olds.adoptKvmId].some((k) => k !== undefined && k !== null && k !== "");
    return checkFields("KvmServer", adopted ? ADOPTED_RULES : RULES, news);
}

export function resourceKeyOf(props: Record<string, unknown>): string | undefined {
    return typeof props[RESOURCE_KEY] === "string" ? (props[RESOURCE_KEY] as string) : undefined;
}

/** The inputs part of a stored outputs object (state carries both). */
export function inputsOf(props: Record<string, unknown>): KvmServerInputs {
    const out: Record<string, unknown> = {};
    for (const name of INPUT_NAMES) if (props[name] !== undefined) out[name] = props[name];
    return out as unknown as KvmServerInputs;
}

/** The outputs a session entry provides. The signature is a credential and is deliberately not among them. */
export function sessionOutputs({ kvmId, apiHost, apiRdns, description, suspended, lps, lpsIsPremium }: KvmSession) {
    return { kvmId, apiHost, apiRdns, description, suspended, lps, lpsIsPremium };
}
