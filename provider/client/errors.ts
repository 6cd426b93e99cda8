/**
 * The one error type of the EDIS client. Everything that goes wrong talking to EDIS becomes an
 * `EdisApiError` whose text, properties and JSON form have had every known secret removed, so it can be
 * thrown through the Pulumi engine (which prints it and, for create/update, stores it) without leaking.
 *
 * Redaction happens here and nowhere else: the constructor redacts every piece of text that came from
 * outside (the server's message, the refusal's `status`, network and schema details), whole and before it is
 * cut to length, so that no secret survives as a prefix at the cut. The error's own frame (endpoint, kind,
 * HTTP status, attempts) is the provider's wording and is never touched, so a short or common password cannot
 * blank ordinary words of it.
 */
import { Meaning } from "./answers";

export type EdisErrorKind =
    | "credentials" // 401/403 or the API said the e-mail/password is wrong
    | "not_found" // EDIS said (JSON, 404 or a refusal naming it) that it does not know the service, KVM or product
    | "bad_request" // 400 or another 4xx: the request itself was refused
    | "rate_limited" // 429
    | "server_error" // 5xx
    | "network" // no answer: refused, reset, dropped connection
    | "timeout" // no answer within the per-request time limit
    | "unexpected_answer" // 2xx but not JSON, not `status: success`, or not the documented shape
    | "session"; // a Management API host refused a fresh session: API Access is off, or the session is not accepted

export interface EdisApiErrorInit {
    endpoint: string;
    kind: EdisErrorKind;
    /** What the answer means (answers.ts); derived from the kind when not given. */
    meaning?: Meaning;
    /** HTTP status, when the server answered at all. */
    status?: number;
    /** The server's own message (`message`/`msg`/`error`), as received: the constructor redacts it. */
    serverMessage?: string;
    /** Extra explanation, e.g. the schema path that did not match; may quote the answer, so it is redacted too. */
    detail?: string;
    /** The secrets to remove from the text above; without one, the text is taken as already redacted. */
    redactor?: Redactor;
    /** Seconds the server asked us to wait (Retry-After), for rate-limit and 503 answers. */
    retryAfterSeconds?: number;
    /** How many attempts were made before giving up. */
    attempts?: number;
    /** The order this error concerns, when an answer named one (add/order or add/upgrade, whatever its status). */
    orderId?: number;
    /** The request was never sent (it failed before leaving: no usable host in a session, say). */
    notSent?: boolean;
    /** Every service id the answer named (add/order): each is a server that may be billed. */
    serviceIds?: number[];
    /** The invoice the answer named. */
    invoiceId?: number;
    /** A refused answer's body, for the endpoint function to read data from; never printed. */
    body?: Record<string, unknown>;
}

/** The meaning of an error made without an answer to classify (the provider's own, or no answer at all). */
const MEANING_OF_KIND: Record<EdisErrorKind, Meaning> = {
    credentials: "credentials",
    not_found: "gone",
    bad_request: "refused",
    rate_limited: "retry",
    server_error: "unknown",
    network: "unknown",
    timeout: "unknown",
    unexpected_answer: "unknown",
    session: "credentials",
};

const KIND_TEXT: Record<EdisErrorKind, string> = {
    credentials: "the e-mail or password was refused",
    not_found: "not found",
    bad_request: "the request was refused",
    rate_limited: "rate limited",
    server_error: "server error",
    network: "no answer (network error)",
    timeout: "no answer in time",
    unexpected_answer: "unexpected answer",
    session: "the management session was refused",
};

/** What to check, for the kinds whose cause is usually the configuration; the provider's own words. */
const KIND_HINT: Partial<Record<EdisErrorKind, string>> = {
    credentials:
        "check config `edis:email` and `edis:password` (or EDIS_EMAIL and EDIS_PASSWORD). `pulumi refresh`, `pulumi destroy` " +
        "and the refresh before `pulumi up` and `preview` use the credentials recorded in the stack's state at the last " +
        "`pulumi up`, not the current config: after changing them, record them with one `pulumi up --refresh=false` " +
        "(check first with `pulumi preview --refresh=false` that it changes nothing else)",
    network: "check config `edis:baseUrl` and `edis:authUrl` (or EDIS_BASE_URL and EDIS_AUTH_URL) and the network",
    session:
        "enable API Access in the KVM portal of any of your servers (it applies to the whole account), then run the " +
        "command again; if it is enabled, check config `edis:managementUrl` (or EDIS_MANAGEMENT_URL)",
};

export class EdisApiError extends Error {
    readonly endpoint: string;
    readonly kind: EdisErrorKind;
    readonly status?: number;
    readonly serverMessage?: string;
    readonly detail?: string;
    readonly retryAfterSeconds?: number;
    readonly attempts?: number;
    readonly orderId?: number;
    readonly serviceIds?: number[];
    readonly invoiceId?: number;
    readonly notSent?: boolean;
    /** What the answer means: gone, cancelled, credentials, refused, retry or unknown (answers.ts). */
    readonly meaning: Meaning;
    /** Not enumerable: a body can echo request fields, so it must not reach JSON, logs or state. */
    declare readonly body?: Record<string, unknown>;

    constructor(init: EdisApiErrorInit) {
        const foreign = (text: string | undefined) => (text === undefined ? undefined : cut(init.redactor ? init.redactor.redact(text) : text));
        const serverMessage = foreign(init.serverMessage);
        const detail = foreign(init.detail);
        const parts = [`EDIS ${init.endpoint}: ${KIND_TEXT[init.kind]}`];
        if (init.status !== undefined) parts[0] += ` (HTTP ${init.status})`;
        if (serverMessage) parts.push(`server said: ${serverMessage}`);
        if (detail) parts.push(detail);
        if (init.attempts !== undefined && init.attempts > 1) parts.push(`after ${init.attempts} attempts`);
        if (KIND_HINT[init.kind]) parts.push(KIND_HINT[init.kind]!);
        super(parts.join("; "));
        this.name = "EdisApiError";
        this.endpoint = init.endpoint;
        this.kind = init.kind;
        this.status = init.status;
        this.serverMessage = serverMessage;
        this.detail = detail;
        this.retryAfterSeconds = init.retryAfterSeconds;
        this.attempts = init.attempts;
        this.orderId = init.orderId;
        this.serviceIds = init.serviceIds;
        this.notSent = init.notSent;
        this.invoiceId = init.invoiceId;
        this.meaning = init.meaning ?? MEANING_OF_KIND[init.kind];
        Object.defineProperty(this, "body", { value: init.body, enumerable: false });
    }

    /** The same error with more context, e.g. the attempt count the retry loop adds. */
    with(extra: Partial<EdisApiErrorInit>): EdisApiError {
        return new EdisApiError({
            endpoint: this.endpoint,
            kind: this.kind,
            status: this.status,
            serverMessage: this.serverMessage,
            detail: this.detail,
            retryAfterSeconds: this.retryAfterSeconds,
            attempts: this.attempts,
            orderId: this.orderId,
            serviceIds: this.serviceIds,
            invoiceId: this.invoiceId,
            notSent: this.notSent,
            meaning: this.meaning,
            body: this.body,
            ...extra,
        });
    }

    /**
     * True when a request that changes something may or may not have taken effect: no answer, a server
     * error, or an answer that could not be read. Such a request must be reported, never repeated blindly.
     */
    get outcomeUnknown(): boolean {
        return this.kind === "network" || this.kind === "timeout" || this.kind === "server_error" || this.kind === "unexpected_answer";
    }

    /** True when repeating the same request later may succeed (used by the retry policy). */
    get transient(): boolean {
        return (
            this.kind === "rate_limited" ||
            this.kind === "server_error" ||
            this.kind === "network" ||
            this.kind === "timeout"
        );
    }
}

export function isEdisApiError(e: unknown): e is EdisApiError {
    return e instanceof EdisApiError || (e instanceof Error && e.name === "EdisApiError");
}

/** Text from outside is kept to this many characters in an error (after redaction). */
export const FOREIGN_TEXT_MAX = 500;

function cut(text: string): string {
    return text.length > FOREIGN_TEXT_MAX ? `${text.slice(0, FOREIGN_TEXT_MAX)}...` : text;
}

/**
 * HTML's named entities for the characters an echo may spell by name: the markup five, and Latin-1's letters and
 * signs as PHP's htmlentities() writes them (`&uuml;`, `&eacute;`, `&szlig;`, ...). Letters are derived from their
 * decomposition (u + diaeresis = uuml); the rest are listed.
 */
const NAMED_ENTITIES: Record<string, string[]> = {
    "&": ["amp"], "<": ["lt"], ">": ["gt"], '"': ["quot"], "'": ["apos", "#39"], " ": ["nbsp"], "\u00a0": ["nbsp"],
    "ß": ["szlig"], "æ": ["aelig"], "Æ": ["AElig"], "ø": ["oslash"], "Ø": ["Oslash"], "ð": ["eth"], "Ð": ["ETH"], "þ": ["thorn"], "Þ": ["THORN"],
    "€": ["euro"], "£": ["pound"], "¥": ["yen"], "©": ["copy"], "®": ["reg"], "§": ["sect"], "°": ["deg"], "±": ["plusmn"], "µ": ["micro"],
    "¿": ["iquest"], "¡": ["iexcl"], "«": ["laquo"], "»": ["raquo"], "·": ["middot"], "¬": ["not"], "¦": ["brvbar"], "¤": ["curren"],
    "¢": ["cent"], "×": ["times"], "÷": ["divide"], "¶": ["para"], "¹": ["sup1"], "²": ["sup2"], "³": ["sup3"], "ª": ["ordf"], "º": ["ordm"],
    "¼": ["frac14"], "½": ["frac12"], "¾": ["frac34"], "´": ["acute"], "¨": ["uml"], "¸": ["cedil"], "¯": ["macr"], "~": ["tilde"], "^": ["circ"],
};
/** HTML5's names for ASCII punctuation, as PHP's htmlentities(..., ENT_HTML5) writes them. */
const HTML5_NAMES: Record<string, string[]> = {
    "@": ["commat"], ".": ["period"], _: ["lowbar", "UnderBar"], "+": ["plus"], "=": ["equals"], "%": ["percnt"], "!": ["excl"],
    "#": ["num"], $: ["dollar"], "(": ["lpar"], ")": ["rpar"], "*": ["ast", "midast"], ",": ["comma"], ":": ["colon"], ";": ["semi"],
    "?": ["quest"], "[": ["lsqb", "lbrack"], "]": ["rsqb", "rbrack"], "\\": ["bsol"], "^": ["Hat"], "`": ["grave", "DiacriticalGrave"],
    "{": ["lcub", "lbrace"], "}": ["rcub", "rbrace"], "|": ["verbar", "vert", "VerticalLine"], "/": ["sol"], "\t": ["Tab"], "\n": ["NewLine"],
};
/** JSON's short escapes. */
const JSON_SHORT: Record<string, string> = { "\t": "t", "\n": "n", "\r": "r", "\b": "b", "\f": "f" };

const ACCENT_NAMES: Record<string, string> = { "\u0300": "grave", "\u0301": "acute", "\u0302": "circ", "\u0303": "tilde", "\u0308": "uml", "\u030a": "ring", "\u0327": "cedil" };

/** The entity names of a character: listed, or derived from its decomposition (ü = u + ¨ = "uuml"). */
function entityNames(ch: string): string[] {
    const listed = [...(NAMED_ENTITIES[ch] ?? []), ...(HTML5_NAMES[ch] ?? [])];
    const [base, accent] = [...ch.normalize("NFD")];
    const derived = accent && ACCENT_NAMES[accent] && /^[a-z]$/i.test(base) ? [`${base}${ACCENT_NAMES[accent]}`] : [];
    return [...listed, ...derived];
}

/** A hex number that matches in either case: 0x2b as "2[bB]". */
function hexAnyCase(n: number, width: number): string {
    return n
        .toString(16)
        .padStart(width, "0")
        .replace(/[a-f]/g, (d) => `[${d}${d.toUpperCase()}]`);
}

function escapeRegExp(text: string): string {
    return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/**
 * Every spelling of one character that an echo of the request may use: as is; percent-encoded in either case
 * (form and URI encoding, one %XX per UTF-8 byte); `+` for a space; JSON's \uXXXX (also as surrogate pairs),
 * `\/` and `\"`; HTML's numeric and named entities.
 */
function spellingsOf(ch: string): string {
    let known = SPELLINGS.get(ch);
    if (known === undefined) SPELLINGS.set(ch, (known = spellingsOfUncached(ch)));
    return known;
}

const SPELLINGS = new Map<string, string>();

function spellingsOfUncached(ch: string): string {
    const cp = ch.codePointAt(0)!;
    const units = ch.length === 2 ? [ch.charCodeAt(0), ch.charCodeAt(1)] : [cp];
    const out = [
        escapeRegExp(ch),
        [...Buffer.from(ch, "utf8")].map((b) => `%${hexAnyCase(b, 2)}`).join(""),
        units.map((u) => `\\\\[uU]${hexAnyCase(u, 4)}`).join(""),
        `&#0*${cp};`,
        `&#[xX]0*${hexAnyCase(cp, 1)};`,
        ...entityNames(ch).map((name) => `&${escapeRegExp(name)};`),
    ];
    // Percent-encoded twice (%2540), and a Latin-1 character as its one byte (%E4).
    out.push([...Buffer.from(ch, "utf8")].map((b) => `%25${hexAnyCase(b, 2)}`).join(""));
    if (cp >= 0x80 && cp <= 0xff) out.push(`%${hexAnyCase(cp, 2)}`);
    // Decomposed (u + combining diaeresis for ü).
    const nfd = ch.normalize("NFD");
    if (nfd !== ch) out.push(escapeRegExp(nfd));
    if (JSON_SHORT[ch]) out.push(`\\\\${JSON_SHORT[ch]}`);
    if (ch === " ") out.push("\\+");
    // A form-decoded echo turns a `+` into a space.
    if (ch === "+") out.push(" ");
    if (ch === "/" || ch === '"' || ch === "\\") out.push(`\\\\${escapeRegExp(ch)}`);
    return `(?:${out.join("|")})`;
}

/** The shortest start of a secret that is removed where a server cut its message after it. */
const CUT_PREFIX_MIN = 4;

/**
 * A server that cuts its own message may end it with the start of a secret ("... pw=Gr\u00fc\u00df"): such a tail, of
 * CUT_PREFIX_MIN characters or more, before an optional ellipsis, is removed too.
 */
function redactCutTail(text: string, secrets: Iterable<string>): string {
    const lower = text.toLowerCase();
    for (const secret of secrets) {
        for (let k = secret.length - 1; k >= CUT_PREFIX_MIN; k--) {
            const start = secret.slice(0, k).toLowerCase();
            for (const tail of [start, `${start}...`, `${start}\u2026`]) {
                if (lower.endsWith(tail)) return `${text.slice(0, text.length - tail.length)}[redacted]${tail.endsWith(start) ? "" : "..."}`;
            }
        }
    }
    return text;
}

/**
 * Removes secrets from text that came from outside (see EdisApiError). A secret is matched in any mix of the
 * spellings of `spellingsOf`, in any case (a server may echo the e-mail lower-cased, or an entity's name in
 * capitals), because a server or proxy may echo the request body in its own encoding.
 * Every secret counts, however short: over-redacting a server's message is safe, leaking part of it is not.
 */
export class Redactor {
    /** Each secret with its pattern, built when first needed (a listing adds a signature per KVM; only errors redact). */
    private readonly secrets = new Map<string, RegExp | undefined>();
    private longestFirst?: string[];

    constructor(secrets: Iterable<string | undefined> = []) {
        for (const s of secrets) this.add(s);
    }

    add(secret: string | undefined): void {
        if (!secret || this.secrets.has(secret)) return;
        this.secrets.set(secret, undefined);
        this.longestFirst = undefined;
    }

    redact(text: string): string {
        if (this.secrets.size === 0) return text;
        // Longest first, so that a secret containing another is removed whole. One pattern per secret, not one for
        // all: an account of hundreds of KVMs holds hundreds of signatures, and one alternation of all their
        // spellings took seconds and a hundred megabytes to build.
        this.longestFirst ??= [...this.secrets.keys()].sort((a, b) => b.length - a.length);
        // Text without any character that starts another spelling can hold a secret only as itself.
        const encoded = /[%&\\+\u0300-\u036f]/.test(text);
        let out = text;
        let lower = out.toLowerCase();
        for (const secret of this.longestFirst) {
            if (!encoded && plainOnly(secret) && !lower.includes(secret.slice(0, CUT_PREFIX_MIN).toLowerCase())) continue;
            let pattern = this.secrets.get(secret);
            if (!pattern) this.secrets.set(secret, (pattern = new RegExp([...secret].map(spellingsOf).join(""), "gi")));
            const next = out.replace(pattern, "[redacted]");
            if (next !== out) lower = (out = next).toLowerCase();
        }
        return redactCutTail(out, this.longestFirst);
    }
}

/** A secret whose every character is spelt only as itself unless the text holds %, &, \\ or + (see spellingsOf). */
function plainOnly(secret: string): boolean {
    return /^[\x21-\x7e]*$/.test(secret) && !/[+\s]/.test(secret);
}
