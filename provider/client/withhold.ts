/**
 * Credentials never leave: every text passes `withhold` before an error, a log line, the journal or the plugin's
 * diagnostics. No decoding catches every spelling of an echo, so EDIS's text fails closed: quoted only when plainly
 * words holding no 8 consecutive characters of a secret (normal form: one layer of escapes decoded, letters and digits,
 * case-folded). "composed" text (the provider's words around judged text) is checked only for whole secrets of 8+
 * characters. A kept value EDIS answered must not hold the password or e-mail whole (secretInValue).
 */

const SECRETS = new Set<string>();
/** The password and e-mail as given, case-folded, where 6+ characters: looked for whole in values (secretInValue). */
const RAW = new Set<string>();
const WINDOWS = new Set<string>();
/** Of secrets that are not an e-mail: a hex run must be shorter than twice this. */
let shortest = Infinity;

export const WINDOW = 8;

export const WORDS_MAX = 600;

/** The e-mail (`wholeOnly`) matches whole or by its local part: its windows are its domain, which a message may name. */
export function addSecret(secret: string | undefined, options: { wholeOnly?: boolean; credential?: boolean } = {}): void {
    const n = normal(secret ?? "");
    if (!n) return;
    SECRETS.add(n);
    if (options.credential && secret!.length >= 6) RAW.add(caseFolded(secret!));
    if (options.wholeOnly) {
        const local = normal(secret!.split("@")[0]);
        if (secret!.includes("@") && local.length >= 3) SECRETS.add(local);
        return;
    }
    shortest = Math.min(shortest, n.length);
    for (let i = 0; i + WINDOW <= n.length; i++) WINDOWS.add(n.slice(i, i + WINDOW));
}

export function forgetSecrets(): void {
    SECRETS.clear();
    RAW.clear();
    WINDOWS.clear();
    shortest = Infinity;
}

export interface TextOrigin {
    status?: number;
    bytes?: number;
    scope?: "words" | "composed";
}

export function withhold(text: string, origin: TextOrigin = {}): string {
    const composed = origin.scope === "composed";
    if (composed ? !holdsSecret(text, true) : plainWords(text) && !holdsSecret(text)) return text;
    const from = [origin.status !== undefined ? `HTTP ${origin.status}` : undefined, origin.bytes !== undefined ? `${origin.bytes} bytes` : undefined].filter(Boolean).join(", ");
    return composed
        ? `[withheld: this text held the account's e-mail, password or a session secret${from ? ` (${from})` : ""}]`
        : `[withheld: EDIS's text is not quoted, as it is not plainly words or holds a secret${from ? ` (${from})` : ""}]`;
}

export function holdsSecret(text: string, wholeOnly = false): boolean {
    if (SECRETS.size === 0 || !text) return false;
    const n = normal(text);
    for (const secret of SECRETS) {
        if (wholeOnly ? secret.length >= WINDOW && n.includes(secret) : n.includes(secret)) return true;
    }
    if (wholeOnly) return false;
    for (let i = 0; i + WINDOW <= n.length; i++) if (WINDOWS.has(n.slice(i, i + WINDOW))) return true;
    return false;
}

/**
 * Where a value EDIS answered holds the account's password or e-mail whole, as given (6+ characters; case, one layer of
 * escapes, form spaces and control characters aside): the path of the first, or undefined. Such an answer is not kept.
 * Neither windows nor the letters and digits alone are looked for: ordinary OS, location and host names share them.
 */
export function secretInValue(value: unknown, path = ""): string | undefined {
    if (typeof value === "string") {
        // As is, with one layer of escapes decoded (percent, entities, \u), backslashes dropped, or `+` as a space; and
        // each without the characters that print nothing (UTF-16's NUL after each character, zero-width spaces, soft hyphens).
        const forms = [value, unescaped(value), value.replace(/\\(.)/g, "$1"), unescaped(value.replace(/\+/g, " "))];
        const plain = [...forms, ...forms.map((f) => f.replace(/[\p{Cc}\p{Cf}]/gu, ""))].map(caseFolded);
        return [...RAW].some((r) => plain.some((p) => p.includes(r))) ? path || "(the answer)" : undefined;
    }
    if (!value || typeof value !== "object") return undefined;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        const found = secretInValue(v, path ? `${path}.${k}` : k);
        if (found) return found;
    }
    return undefined;
}

/** A word of any language ("o'brien", "location_id") or a number, date or time, between ordinary punctuation. */
const PLAIN_WORD = /^[("'[#]*(?:[\p{L}\p{M}]+(?:['’._-][\p{L}\p{M}\p{N}]+)*|\p{N}+(?:[.,:/-]\p{N}+)*)[)"'\].,;:!?%]*$/u;
/** A run that could be hex or a byte list of a secret. */
function hexRun(text: string): boolean {
    const length = Math.max(8, Math.min(16, 2 * shortest));
    return new RegExp(`(?:[0-9a-f][\\s:.,;_-]{0,3}){${length},}`, "i").test(text);
}

/** Six or more characters spelled out one by one ("e-H-g-i-Y-y", "1 1 1 3 9 9"): a spelling of something, never words. */
const SPELLED_OUT = /(?:(?<![\p{L}\p{N}])[\p{L}\p{N}][^\p{L}\p{N}]{1,3}){5,}[\p{L}\p{N}](?![\p{L}\p{N}])/u;

export function plainWords(text: string): boolean {
    // Judged in compatibility form: full-width digits are digits.
    if (text.length > WORDS_MAX || /\p{C}/u.test(text) || hexRun(text.normalize("NFKC")) || SPELLED_OUT.test(text)) return false;
    return text.split(" ").every((token) => token === "" || (PLAIN_WORD.test(token) && naturalCase(token)));
}

/** Each part in one natural case (lower, Capitalized, UPPER), as no encoding's are. */
function naturalCase(token: string): boolean {
    return token.split(/['’._-]/).every((part) => {
        const letters = part.replace(/[^\p{L}]/gu, "");
        const lower = letters.toLowerCase();
        return letters === lower || letters === letters.toUpperCase() || letters === letters[0] + lower.slice(1);
    });
}

function normal(text: string): string {
    return caseFolded(unescaped(text)).replace(/[^\p{L}\p{N}]/gu, "");
}

/** Case-folded so that ß and its echo SS compare equal. */
function caseFolded(text: string): string {
    return text.normalize("NFKC").toUpperCase().toLowerCase();
}

/** One layer of escapes decoded (JSON, percent, HTML entities, quoted-printable). */
function unescaped(text: string): string {
    return text
        .replace(/\\u\{([0-9a-f]{1,6})\}|\\u([0-9a-f]{4})|\\x([0-9a-f]{2})|%([0-9a-f]{2})|&#x([0-9a-f]{1,6});?|&#(\d{1,7});?|=([0-9A-F]{2})/gi, (m, ...hex: string[]) => {
            const [brace, u, x, pct, entityHex, entityDec, qp] = hex;
            const code = entityDec !== undefined ? Number(entityDec) : parseInt(brace ?? u ?? x ?? pct ?? entityHex ?? qp, 16);
            return code <= 0x10ffff ? String.fromCodePoint(code) : m;
        })
        .replace(/&(amp|lt|gt|quot|apos);/gi, (_, name: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" })[name.toLowerCase() as "amp"])
        .replace(/&[a-z]+;/gi, "");
}

/** The same object, so an init error keeps its id and outputs. */
export function withheldError<E>(e: E): E {
    const composed = { scope: "composed" } as const;
    if (!(e instanceof Error)) return typeof e === "string" ? (withhold(e, composed) as unknown as E) : e;
    const reasons = (e as { reasons?: unknown }).reasons;
    if (holdsSecret(e.message, true)) e.message = withhold(e.message, composed);
    if (e.stack && holdsSecret(e.stack, true)) e.stack = `${e.name}: ${e.message}`;
    if (Array.isArray(reasons)) (e as { reasons?: unknown[] }).reasons = reasons.map((r) => (typeof r === "string" ? withhold(r, composed) : r));
    return e;
}

/** The dynamic host prints `${e}: ${e.stack}`, the message twice: the stack goes, except for a JavaScript fault's. */
export function withoutRepeat<E>(e: E): E {
    if (e instanceof Error && ![TypeError, ReferenceError, RangeError, SyntaxError].some((fault) => e instanceof fault)) e.stack = "";
    return e;
}
