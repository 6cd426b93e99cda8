/** `edis:*` settings and env fallbacks; credentials go only to the client, never inputs, outputs or captures. */
import { CANCELLATION_TYPES, CancellationType } from "./client/model";
import { DEFAULT_AUTH_URL, DEFAULT_BASE_URL, EdisClient, EdisClientOptions, trimSlash } from "./client/client";
import { DEFAULT_MANAGEMENT_URL } from "./client/management";
import { JournalLocation, journalLocationFrom } from "./journal/location";
import { CheckFailure, nearest } from "./fields";

/** A loop that orders forty servers instead of four stops at the eleventh; a larger fleet raises it knowingly. */
export const DEFAULT_MAX_NEW_SERVERS = 10;

/** Every setting once: schema type (strings too, as the CLI and host send them) and meaning; env EDIS_<UPPER_SNAKE>. */
export const SETTINGS = settings({
    email: { type: "string", doc: "E-mail address of the EDIS account." },
    password: { type: "string", doc: "Password of the EDIS account. Set it as a secret: `pulumi config set --secret edis:password`." },
    baseUrl: { type: "string", doc: "Base URL of the EDIS order API." },
    authUrl: { type: "string", doc: "Base URL of the EDIS session API (get/auth)." },
    managementUrl: { type: "string", doc: "URL template of a server's Management API; `{host}` stands for the server's api_host." },
    paymentMethod: { type: "string", doc: "Payment method of orders that name none (see getPaymentMethods)." },
    cancellationType: { type: "CancellationType", doc: 'What deleting a server asks EDIS for: "Immediate" or "End of Billing Period" (the default).' },
    provisioningTimeoutSeconds: { type: "integer", doc: "How long a create waits for EDIS to provision a server, in seconds (default 1200)." },
    provisioningPollSeconds: { type: "number", doc: "First wait between provisioning polls, in seconds; it grows by half each poll, to 30 s." },
    requestTimeoutSeconds: { type: "number", doc: "Time limit of one request to EDIS, in seconds." },
    allowInsecureHttp: { type: "boolean", doc: "Allow http:// endpoints other than loopback (never for a real account)." },
    journalUrl: { type: "string", doc: "Where the order journal lives: `file://<dir>` (default `file://.pulumi-edis/journal`, relative to the program's directory), or `s3://<bucket>/<prefix>?region=...` for CI runners that do not outlive a job (guide: CI and the shared journal)." },
    batchOrders: { type: "boolean", doc: "Order the servers a deployment creates together in one order (one invoice). Off by default." },
    maxAddedMonthlySpend: {
        type: "string",
        doc: 'The most one deployment may add to the monthly bill by ordering, replacing and changing plans, at list price before tax, as an amount and its currency ("50 EUR"): each change is priced as preview shows it, and the one that would pass the limit is not made. Unset: no limit.',
    },
    maxNewServers: {
        type: "integer",
        doc: `The most servers one deployment may order (new ones, and the new half of a replacement; adoptions and resumed orders do not count), in preview and up alike. Default ${DEFAULT_MAX_NEW_SERVERS}; 0 orders none.`,
    },
});

export type SettingName = keyof typeof SETTINGS;

function settings<const T extends Record<string, { type: string; doc: string }>>(defs: T): { [K in keyof T]: T[K] & { key: K; env: string } } {
    const withKeys = Object.entries(defs).map(([key, d]) => [key, { ...d, key, env: `EDIS_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}` }]);
    return Object.fromEntries(withKeys) as { [K in keyof T]: T[K] & { key: K; env: string } };
}

/** The `edis` keys that are no setting: a mistyped key would be ignored without a word, and a guard under it off. */
export function unknownSettings(keys: Iterable<string>): CheckFailure[] {
    const known = Object.values(SETTINGS).map((s) => s.key as string);
    return [...keys]
        .filter((key) => !known.includes(key))
        .map((key) => {
            const near = nearest(key, known);
            return {
                property: key,
                reason: `config \`${CONFIG_NAMESPACE}:${key}\` is not a setting of the edis provider${near ? ` (did you mean \`${CONFIG_NAMESPACE}:${near}\`?)` : ""}; its settings are ${known.join(", ")}`,
            };
        });
}
export const CONFIG_NAMESPACE = "edis";

export const DEFAULT_PROVISIONING_TIMEOUT_SECONDS = 1200;
export const DEFAULT_CANCELLATION_TYPE: CancellationType = "End of Billing Period";

export type ProviderConfig = ReturnType<typeof resolveConfig>;

/** An empty config value counts as unset, so that `EDIS_PASSWORD` can still supply it. */
export function resolveConfig(
    get: (key: string) => string | undefined,
    env: NodeJS.ProcessEnv = process.env,
) {
    const problems: string[] = [];
    const read = (name: SettingName): string | undefined => {
        const s = SETTINGS[name];
        const v = get(s.key);
        if (v !== undefined && v !== "") return v;
        const e = env[s.env];
        return e !== undefined && e !== "" ? e : undefined;
    };
    const number = (name: SettingName, fallback: number, min: number, max: number): number => {
        const raw = read(name);
        if (raw === undefined) return fallback;
        const n = Number(raw);
        if (!Number.isFinite(n) || n < min || n > max) {
            problems.push(`${describeSetting(name)} must be a number from ${min} to ${max}, got "${raw}"`);
            return fallback;
        }
        return n;
    };
    const whole = (name: SettingName, fallback: number, min: number, max: number): number => {
        const n = number(name, fallback, min, max);
        if (Number.isInteger(n)) return n;
        problems.push(`${describeSetting(name)} must be a whole number, got "${read(name)}"`);
        return fallback;
    };
    const allowInsecureHttp = read("allowInsecureHttp") === "true";
    // Session signatures travel in the Management API's request bodies, so the https rule applies to its template too.
    // `template`: a URL with a {host} placeholder, checked with a host in its place.
    const url = (name: SettingName, fallback: string, template = false): string => {
        const raw = read(name);
        if (raw === undefined) return fallback;
        const problem = endpointUrlProblem(template ? raw.replace("{host}", "api.example.com") : raw, allowInsecureHttp);
        if (!problem) return trimSlash(raw);
        problems.push(`${describeSetting(name)} ${problem}${template ? ` (it may contain {host}, as in "${fallback}")` : ""}`);
        return fallback;
    };
    const batchOrders = read("batchOrders");
    if (batchOrders !== undefined && batchOrders !== "true" && batchOrders !== "false") {
        problems.push(`${describeSetting("batchOrders")} must be "true" or "false", got "${batchOrders}"`);
    }
    // Set but empty (an undefined CI variable) is refused, not taken as the local default a runner loses.
    const journalUrl = get(SETTINGS.journalUrl.key);
    const journal: JournalLocation = journalLocationFrom(journalUrl || (env[SETTINGS.journalUrl.env] ?? journalUrl), describeSetting("journalUrl"));
    if (journal.kind === "unusable") problems.push(journal.problem);
    const cancellation = read("cancellationType");
    const cancellationType = CANCELLATION_TYPES.find((t) => t === cancellation);
    if (cancellation !== undefined && !cancellationType) {
        problems.push(`${describeSetting("cancellationType")} must be "Immediate" or "End of Billing Period", got "${cancellation}"`);
    }
    return {
        email: read("email"),
        password: read("password"),
        baseUrl: url("baseUrl", DEFAULT_BASE_URL),
        authUrl: url("authUrl", DEFAULT_AUTH_URL),
        managementUrl: url("managementUrl", DEFAULT_MANAGEMENT_URL, true),
        paymentMethod: read("paymentMethod"),
        cancellationType,
        provisioningTimeoutSeconds: number("provisioningTimeoutSeconds", DEFAULT_PROVISIONING_TIMEOUT_SECONDS, 1, 86_400),
        provisioningPollSeconds: number("provisioningPollSeconds", 5, 0.05, 300),
        requestTimeoutSeconds: number("requestTimeoutSeconds", 30, 1, 600),
        journal,
        batchOrders: batchOrders === "true",
        maxNewServers: whole("maxNewServers", DEFAULT_MAX_NEW_SERVERS, 0, 100_000),
        maxAddedMonthlySpend: spendLimit(read("maxAddedMonthlySpend"), problems),
        problems,
    };
}

/** "50 EUR" as cents and currency; anything else is a problem, never "no limit". */
function spendLimit(raw: string | undefined, problems: string[]): { cents: number; currency: string } | undefined {
    if (raw === undefined) return undefined;
    const m = /^\s*(\d+(?:\.\d{1,2})?)\s*([A-Za-z]{3})\s*$/.exec(raw);
    if (!m) {
        problems.push(`${describeSetting("maxAddedMonthlySpend")} must be an amount and a currency, such as "50 EUR", got "${raw}"`);
        return undefined;
    }
    return { cents: Math.round(Number(m[1]) * 100), currency: m[2].toUpperCase() };
}

/** Hides up to the last "@": a password may hold "/", ":" or "@". */
export function maskUserInfo(raw: string): string {
    return raw.replace(/\/\/.*@/, "//***@");
}

/** The password travels in every request body: https only, except to loopback or with `edis:allowInsecureHttp`. */
export function endpointUrlProblem(raw: string, allowInsecureHttp: boolean): string | undefined {
    let url: URL;
    try {
        url = new URL(raw);
    } catch {
        return `must be an https URL such as "${DEFAULT_BASE_URL}", got "${maskUserInfo(raw)}"`;
    }
    if (url.username || url.password) {
        return `must not carry credentials (user:password@); set config \`edis:email\` and \`edis:password\` instead`;
    }
    if (url.protocol === "https:") return undefined;
    if (url.protocol !== "http:") return `must be an https URL, got "${url.protocol}//${url.host}"`;
    const loopback = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i.test(url.hostname);
    if (loopback || allowInsecureHttp) return undefined;
    return (
        `must be https: the account password is sent with every request, and "${url.origin}" would send it unencrypted ` +
        `(plain http is allowed to localhost, or with ${describeSetting("allowInsecureHttp")} set to true)`
    );
}

export function describeSetting(name: SettingName): string {
    return `config \`${CONFIG_NAMESPACE}:${SETTINGS[name].key}\` (or ${SETTINGS[name].env})`;
}

export function requireCredentials(config: ProviderConfig): { email: string; password: string } {
    if (config.problems.length) throw new Error(`pulumi-edis configuration: ${config.problems.join("; ")}`);
    const missing = (["email", "password"] as const).filter((name) => !config[name]).map(describeSetting);
    if (missing.length) {
        throw new Error(
            `pulumi-edis needs EDIS credentials: set ${missing.join(" and ")}. ` +
                `For example: pulumi config set --secret edis:email you@example.com && pulumi config set --secret edis:password`,
        );
    }
    return { email: config.email!, password: config.password! };
}

/** The one place where credentials leave the config. */
export function clientFromConfig(config: ProviderConfig, options: Pick<EdisClientOptions, "log" | "clock" | "cancelled"> & { userAgent: string }): EdisClient {
    const { email, password } = requireCredentials(config);
    return new EdisClient({ email, password, baseUrl: config.baseUrl, authUrl: config.authUrl, timeoutMs: config.requestTimeoutSeconds * 1000, ...options });
}
