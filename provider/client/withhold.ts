/**
 * Credentials never leave: the one function every text passes before it reaches an error, a log line, the order journal
 * or the plugin's diagnostics (`withhold`).
 *
 * Decoding an echo into every spelling a server might use failed four reviews running (each found an encoding nobody
 * listed). So EDIS's text is judged by its shape instead, and fails closed: it is quoted only when it is plainly words
 * (PLAIN_WORD: printable letters of any language, numbers and ids, nothing that could be an encoding), and when its normal
 * form holds no 8 consecutive characters of a secret (a shorter secret: whole). Anything else is replaced by a line with
 * the HTTP status and the answer's size; nothing of it, not even a digest, leaves.
 *
 *   words      EDIS's text (an answer's message, a value it sent): the shape and the windows
 *   composed   the provider's own words around EDIS's text, already judged (errors at both doors, log lines, the journal's
 *              `problem`, the plugin's diagnostics): withheld when its normal form holds a secret of 8 characters or more
 *              whole; shorter secrets and windows would match the provider's own words ("password", "server")
 *
 * The normal form decodes one layer of escapes (`\xNN`, `\uNNNN`, `%NN`, `&#N;`, `=NN`), then keeps only letters and
 * digits, case-folded: an echo that escapes, quotes or spaces a password still holds it there.
 *
 * The secrets are the process's: the account's e-mail and password, every session signature EDIS issued, VNC and callback
 * passwords. One provider process serves one stack, and the journal and the log hold no client, so the set is kept here.
 */

/** Every secret this process was given, in normal form. */
const SECRETS = new Set<string>();
/** Every 8-character window of each longer secret, in normal form. */
const WINDOWS = new Set<string>();
/** The length of the shortest secret that is not an e-mail, in normal form: what a hex run must be shorter than twice. */
let shortest = Infinity;

/** The number of consecutive characters of a secret that withhold EDIS's text. */
export const WINDOW = 8;

/** EDIS's text is quoted up to this many characters; a longer one is withheld. */
export const WORDS_MAX = 600;

/**
 * Adds a secret. The e-mail (`wholeOnly`) is matched whole, and by its local part of 3 characters or more (an address a
 * server spells out, "bob at example dot com"): its windows are its domain, which a message may name for other reasons.
 */
export function addSecret(secret: string | undefined, options: { wholeOnly?: boolean } = {}): void {
    const n = normal(secret ?? "");
    if (!n) return;
    SECRETS.add(n);
    if (options.wholeOnly) {
        const local = normal(secret!.split("@")[0]);
        if (secret!.includes("@") && local.length >= 3) SECRETS.add(local);
        return;
    }
    shortest = Math.min(shortest, n.length);
    for (let i = 0; i + WINDOW <= n.length; i++) WINDOWS.add(n.slice(i, i + WINDOW));
}

/** Forgets every secret (tests that start a new account in one process). */
export function forgetSecrets(): void {
    SECRETS.clear();
    WINDOWS.clear();
    shortest = Infinity;
}

/** What is known of where a text came from, for the line that replaces it. */
export interface TextOrigin {
    /** HTTP status of the answer the text came from. */
    status?: number;
    /** The answer's length in bytes. */
    bytes?: number;
    /** "words" (EDIS's text; the default) or "composed" (the provider's words around judged text): see above. */
    scope?: "words" | "composed";
}

/** The text, or a line saying it was withheld (see the module comment for when). */
export function withhold(text: string, origin: TextOrigin = {}): string {
    const composed = origin.scope === "composed";
    if (composed ? !holdsSecret(text, true) : plainWords(text) && !holdsSecret(text)) return text;
    const from = [origin.status !== undefined ? `HTTP ${origin.status}` : undefined, origin.bytes !== undefined ? `${origin.bytes} bytes` : undefined].filter(Boolean).join(", ");
    return composed
        ? `[withheld: this text held the account's e-mail, password or a session secret${from ? ` (${from})` : ""}]`
        : `[withheld: EDIS's text is not quoted, as it is not plainly words or holds a secret${from ? ` (${from})` : ""}]`;
}

/** Whether the text's normal form holds a secret: 8 consecutive characters of one, or one whole; with `wholeOnly`, one of 8 or more whole. */
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
 * A token of plain words: a word of any language (with `'`, `-`, `.` or `_` inside: "o'brien", "location_id",
 * "kvm_101003_2"), a number, date or time ("#5001", "2031-01-31", "12.50"), between ordinary punctuation; the letters
 * of each part in one natural case (lower, Capitalized, UPPER), as no encoding's are.
 */
const PLAIN_WORD = /^[("'[#]*(?:[\p{L}\p{M}]+(?:['’._-][\p{L}\p{M}\p{N}]+)*|\p{N}+(?:[.,:/-]\p{N}+)*)[)"'\].,;:!?%]*$/u;
/** A run that could be hex or a byte list of a secret, separators allowed between its characters: 16 characters, fewer for a short secret. */
function hexRun(text: string): boolean {
    const length = Math.max(8, Math.min(16, 2 * shortest));
    return new RegExp(`(?:[0-9a-f][\\s:.,_-]?){${length},}`, "i").test(text);
}

/** Whether EDIS's text is plainly words: bounded, no control or invisible characters, every token a plain word, no hex run. */
export function plainWords(text: string): boolean {
    if (text.length > WORDS_MAX || /\p{C}/u.test(text) || hexRun(text)) return false;
    return text.split(" ").every((token) => token === "" || (PLAIN_WORD.test(token) && naturalCase(token)));
}

/** Each part of the token ("products.KVM", "location_id") in one natural case: lower, Capitalized or UPPER. */
function naturalCase(token: string): boolean {
    return token.split(/['’._-]/).every((part) => {
        const letters = part.replace(/[^\p{L}]/gu, "");
        const lower = letters.toLowerCase();
        return letters === lower || letters === letters.toUpperCase() || letters === letters[0] + lower.slice(1);
    });
}

/** One layer of escapes decoded, then letters and digits only, case-folded (ß and its echo SS compare equal). */
function normal(text: string): string {
    const decoded = text
        .replace(/\\u\{([0-9a-f]{1,6})\}|\\u([0-9a-f]{4})|\\x([0-9a-f]{2})|%([0-9a-f]{2})|&#x([0-9a-f]{1,6});?|&#(\d{1,7});?|=([0-9A-F]{2})/gi, (m, ...hex: string[]) => {
            const [brace, u, x, pct, entityHex, entityDec, qp] = hex;
            const code = entityDec !== undefined ? Number(entityDec) : parseInt(brace ?? u ?? x ?? pct ?? entityHex ?? qp, 16);
            return code <= 0x10ffff ? String.fromCodePoint(code) : m;
        })
        .replace(/&[a-z]+;/gi, "");
    return decoded.normalize("NFKC").toUpperCase().toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");
}

/** An error leaving a door (dynamic host, plugin), its message and reasons withheld: the same object, so an init error keeps id and outputs. */
export function withheldError<E>(e: E): E {
    const composed = { scope: "composed" } as const;
    if (!(e instanceof Error)) return typeof e === "string" ? (withhold(e, composed) as unknown as E) : e;
    const reasons = (e as { reasons?: unknown }).reasons;
    if (holdsSecret(e.message, true)) e.message = withhold(e.message, composed);
    if (e.stack && holdsSecret(e.stack, true)) e.stack = `${e.name}: ${e.message}`;
    if (Array.isArray(reasons)) (e as { reasons?: unknown[] }).reasons = reasons.map((r) => (typeof r === "string" ? withhold(r, composed) : r));
    return e;
}

/** An implementation whose errors pass `withheldError` and check failures `withhold`: what the dynamic host prints and stores holds no secret. */
export function guarded<T extends object>(impl: T): T {
    const out: Record<string, unknown> = {};
    for (const [name, fn] of Object.entries(impl)) {
        if (typeof fn !== "function") {
            out[name] = fn;
            continue;
        }
        out[name] = async (...args: unknown[]) => {
            try {
                const result = await (fn as (...a: unknown[]) => Promise<unknown>).apply(impl, args);
                const failures = (result as { failures?: Array<{ property: string; reason: string }> } | undefined)?.failures;
                if (Array.isArray(failures)) return { ...(result as object), failures: failures.map((f) => ({ ...f, reason: withhold(f.reason, { scope: "composed" }) })) };
                return result;
            } catch (e) {
                throw withheldError(e);
            }
        };
    }
    return out as T;
}
