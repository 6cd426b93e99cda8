/**
 * Credentials never leave: the one function every text from outside passes through before it reaches an error, a
 * log line, the order journal or the plugin's diagnostics (`withhold`).
 *
 * Redaction by listing spellings failed three reviews running: a server echoes a request in encodings nobody
 * listed (PHP's addslashes `o\'brien`, SQL's `o''brien`, a JSON string inside a JSON string). So a text is not
 * edited; it is decoded into every normal form an echo may have produced (DECODERS, case, and their combinations),
 * and when one holds a secret (by the strengths below) the whole text is withheld and replaced by a line that says
 * so, with the HTTP status and the answer's length. A false withhold costs a diagnosis; a missed one costs a password.
 *
 * Two strengths of the one rule, by where a text comes from:
 *   foreign   EDIS's words (an answer's message, a detail quoting it): withheld when a normal form holds a secret
 *             whole, or any 8 consecutive characters of one (a server may cut its message inside the password).
 *             EdisApiError applies it the moment such a text enters.
 *   composed  what leaves: the provider's own words around foreign text that was withheld already (errors at both
 *             doors, log lines, the journal's `problem`, the plugin's diagnostics): withheld when a normal form holds
 *             a secret of 8 characters or more whole. Windows, and shorter secrets, are left to the foreign text,
 *             where they can only be echoes: the provider's own words ("password", "provisioned", "server") would
 *             match them for many real passwords and blank every hint and log line the provider gives.
 *
 * The secrets are the process's: the account's e-mail and password, every session signature EDIS issued, VNC and
 * callback passwords. One provider process serves one stack, and the journal, the log and the plugin's diagnostics
 * hold no client, so the set is kept here rather than in a client.
 */

/** Case folded through upper case first, as a server's casing leaves it: ß (upper-cased to SS) and its echo compare equal. */
function fold(text: string): string {
    return text.toUpperCase().toLowerCase();
}

/** Every secret this process was given, case-folded (the comparison ignores case). */
const SECRETS = new Set<string>();
/** Every 8-character window of each secret longer than 8 characters, case-folded. */
const WINDOWS = new Set<string>();
/** The e-mail is matched whole: its windows are its domain, which a message may name for other reasons. */
const WHOLE_ONLY = new Set<string>();

/** The number of consecutive characters of a secret that, found in any normal form, withhold a text. */
export const WINDOW = 8;

/** Adds a secret; `wholeOnly` for the e-mail address. Empty values are ignored. */
export function addSecret(secret: string | undefined, options: { wholeOnly?: boolean } = {}): void {
    if (!secret) return;
    const lower = fold(secret);
    SECRETS.add(lower);
    if (options.wholeOnly) {
        WHOLE_ONLY.add(lower);
        return;
    }
    for (let i = 0; i + WINDOW <= lower.length; i++) WINDOWS.add(lower.slice(i, i + WINDOW));
}

/** Forgets every secret (tests that start a new account in one process). */
export function forgetSecrets(): void {
    SECRETS.clear();
    WINDOWS.clear();
    WHOLE_ONLY.clear();
}

/** What is known of where a text came from, for the line that replaces it. */
export interface TextOrigin {
    /** HTTP status of the answer the text came from. */
    status?: number;
    /** The answer's length in bytes. */
    bytes?: number;
    /** "foreign" (EDIS's words; the default) or "composed" (the provider's words around withheld text): see above. */
    scope?: "foreign" | "composed";
}

/** The text, or a line saying it was withheld when any normal form of it holds a secret. */
export function withhold(text: string, origin: TextOrigin = {}): string {
    if (!holdsSecret(text, origin.scope === "composed")) return text;
    const from = [origin.status !== undefined ? `HTTP ${origin.status}` : undefined, origin.bytes !== undefined ? `${origin.bytes} bytes` : undefined]
        .filter(Boolean)
        .join(", ");
    return `[withheld: this text held the account's e-mail, password or a session secret in some encoding${from ? ` (${from})` : ""}]`;
}

/**
 * Whether any normal form of the text holds a secret: as foreign text, or with `wholeOnly` as composed text (see above).
 * Foreign text whose forms were not all decoded (MAX_FORMS reached) counts as holding one: it fails closed.
 */
export function holdsSecret(text: string, wholeOnly = false): boolean {
    if (SECRETS.size === 0 || !text) return false;
    const { forms, complete } = normalForms(text);
    if (forms.some((form) => formHolds(fold(form), wholeOnly))) return true;
    return !complete && !wholeOnly;
}

function formHolds(form: string, wholeOnly: boolean): boolean {
    for (const secret of SECRETS) {
        if (wholeOnly && secret.length < WINDOW) continue;
        if ((wholeOnly || secret.length <= WINDOW || WHOLE_ONLY.has(secret)) && form.includes(secret)) return true;
    }
    if (wholeOnly || WINDOWS.size === 0) return false;
    for (let i = 0; i + WINDOW <= form.length; i++) if (WINDOWS.has(form.slice(i, i + WINDOW))) return true;
    return false;
}

// ---- normal forms -------------------------------------------------------------------------------------------

/** How many decodings are chained at most, and how many forms are looked at: enough for three nested encodings. */
const MAX_DEPTH = 5;
const MAX_FORMS = 400;

/**
 * The text and every form the decoders below make of it, chained breadth first; a form seen is not decoded again, and a
 * decoder that finds nothing gives the text back, so a plain message costs one pass of each.
 */
function normalForms(text: string): { forms: string[]; complete: boolean } {
    const seen = new Set<string>([text]);
    let layer = [text];
    for (let depth = 0; depth < MAX_DEPTH && layer.length; depth++) {
        const next: string[] = [];
        for (const form of layer) {
            for (const decode of DECODERS) {
                let out: string;
                try {
                    out = decode(form);
                } catch {
                    continue;
                }
                if (seen.has(out)) continue;
                // Full: the caller fails closed on foreign text, so decoding further would change nothing.
                if (seen.size >= MAX_FORMS) return { forms: [...seen], complete: false };
                seen.add(out);
                next.push(out);
            }
        }
        layer = next;
    }
    return { forms: [...seen], complete: true };
}

/** `\'`, `\"`, `\\`, `\/`, `\n`, `\t`, `\xNN`, `\uNNNN` (and surrogate pairs), `\u{N}`, octal `\NNN`, and `\` before anything else. */
function backslashEscapes(s: string): string {
    if (!s.includes("\\")) return s;
    // `\X` and `\U` too: a server that upper-cases its message upper-cases the escapes in it.
    return s.replace(/\\(?:[uU]\{([0-9a-fA-F]{1,6})\}|[uU]([0-9a-fA-F]{4})|[xX]([0-9a-fA-F]{2})|([0-7]{1,3})|([\s\S]))/g, (_, brace, u4, x2, oct, other) => {
        if (brace) return codePoint(parseInt(brace, 16));
        if (u4) return String.fromCharCode(parseInt(u4, 16));
        if (x2) return String.fromCharCode(parseInt(x2, 16));
        if (oct) return String.fromCharCode(parseInt(oct, 8));
        return SHORT_ESCAPES[other] ?? other;
    });
}
const SHORT_ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", v: "\v", "0": "\0" };

/** `\xNN` escapes read as UTF-8 bytes (PHP and C write non-ASCII so), not as Latin-1 characters. */
function byteEscapesAsUtf8(s: string): string {
    if (!/\\[xX][0-9a-fA-F]{2}/.test(s)) return s;
    return s.replace(/(?:\\[xX][0-9a-fA-F]{2})+/g, (run) => Buffer.from(run.split(/\\[xX]/).slice(1).map((h) => parseInt(h, 16))).toString("utf8"));
}

/** SQL's and CSV's doubled quotes: `''` and `""`. */
function doubledQuotes(s: string): string {
    return s.replace(/''/g, "'").replace(/""/g, '"');
}

/** Percent escapes as UTF-8 (form and URI encoding), `%uNNNN`, and a lone `%XX` that is no UTF-8 as Latin-1. */
function percent(s: string): string {
    if (!s.includes("%")) return s;
    const unicode = s.replace(/%u([0-9a-fA-F]{4})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
    return unicode.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => escapedBytes(run, "%"));
}

function plusAsSpace(s: string): string {
    return s.includes("+") ? s.replace(/\+/g, " ") : s;
}

/** HTML's numeric and named entities (the `;` may be missing, as browsers allow), and tags as spaces. */
function htmlEntities(s: string): string {
    if (!s.includes("&") && !s.includes("<")) return s;
    return s
        .replace(/&#[xX]([0-9a-fA-F]{1,6});?/g, (_, h) => codePoint(parseInt(h, 16)))
        .replace(/&#(\d{1,7});?/g, (_, d) => codePoint(Number(d)))
        .replace(/&([a-zA-Z][a-zA-Z0-9]{1,31});?/g, (m, name: string) => ENTITIES[name] ?? ENTITIES[name.toLowerCase()] ?? m)
        .replace(/<[^<>]{0,200}>/g, " ");
}

/** Quoted-printable: `=XX` as UTF-8, and soft line breaks. */
function quotedPrintable(s: string): string {
    if (!s.includes("=")) return s;
    const joined = s.replace(/=\r?\n/g, "");
    return joined.replace(/(?:=[0-9A-F]{2})+/gi, (run) => escapedBytes(run, "="));
}

/** A run of hex bytes each behind `mark` (`%E2%82`, `=E2=82`), as UTF-8, else Latin-1. */
function escapedBytes(run: string, mark: string): string {
    const bytes = Buffer.from(run.split(mark).slice(1).map((h) => parseInt(h, 16)));
    const utf8 = bytes.toString("utf8");
    return utf8.includes("\ufffd") ? bytes.toString("latin1") : utf8;
}

/** Bytes read as text: UTF-8, else Latin-1; NULs (AUTH PLAIN's separators, UTF-16's high bytes) read as nothing. */
function bytesAsText(bytes: Buffer): { text: string; latin1: boolean } {
    const utf8 = bytes.toString("utf8");
    const latin1 = utf8.includes("\ufffd");
    return { text: (latin1 ? bytes.toString("latin1") : utf8).replace(/\x00/g, ""), latin1 };
}

/** Text, not noise: at most a tenth control characters (or, read as Latin-1, what is not a letter). */
function mostlyText({ text, latin1 }: { text: string; latin1: boolean }): boolean {
    const noise = (text.match(/[\x01-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g) ?? []).length + (latin1 ? (text.match(/[^\x20-\x7e\xc0-\xff]/g) ?? []).length : 0);
    return noise <= 0.1 * text.length;
}

/**
 * Runs of base64 (standard or URL-safe), decoded at each of the four alignments of the whole run: a run glued to a
 * prefix (`tokenSHVu...`, `debug <digest><base64>`, a path) decodes right from the alignment where its encoding
 * starts, whatever precedes it. The readings are the printable stretches of the bytes (as UTF-8 and as Latin-1), so a
 * garbage prefix costs nothing; a run with no such stretch is left as it is.
 */
function base64Runs(s: string): string {
    return s.replace(/[A-Za-z0-9+/_-]{8,}={0,2}/g, (run) => {
        const plain = run.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
        const readings: string[] = [];
        for (let at = 0; at < 4 && plain.length - at >= 8; at++) {
            const stretches = printable(Buffer.from(plain.slice(at), "base64"));
            if (stretches) readings.push(stretches);
        }
        return readings.length > 0 ? readings.join(" ") : run;
    });
}

/** Runs of hex (SQL's 0x... literals, dumps with spaces or colons between bytes, UTF-16) that decode to text, at either alignment. */
function hexRuns(s: string): string {
    return s.replace(/(?:0x)?[0-9a-fA-F]{2}(?:[ :.-]?[0-9a-fA-F]{2}){5,}[0-9a-fA-F]?/g, (run) => {
        // With separators, from each of the first four bytes (a word glued in front: "bad 48 75"); else at either alignment.
        const tokens = run.replace(/^0x/, "").split(/[ :.-]/);
        const hexes = tokens.length > 1 ? [0, 1, 2, 3].map((k) => tokens.slice(k).join("")) : [tokens[0], tokens[0].slice(1)];
        const readings = hexes
            .filter((hex) => hex.length >= 12)
            .map((hex) => bytesAsText(Buffer.from(hex.slice(0, Math.floor(hex.length / 2) * 2), "hex")))
            .filter(mostlyText)
            .map((r) => r.text);
        return readings.length > 0 ? readings.join(" ") : run;
    });
}

/**
 * Lists of six or more short tokens with one kind of separator (`,` `;` `:` `|` `.` `-` `_` or spaces), quoted or
 * with `0x`: byte values (Node's Buffer as JSON, SQL's CHAR(84,114,...), `[84 114 48]`), hex bytes (`0x54, 0x72`,
 * `54,72,30`), or single characters (PHP's str_split as JSON `["T","r"]`); and any characters one separator apart
 * (`T-r-0-u`, `P.a.'.s`). Each reading that the tokens allow is added, so that one list decoder serves every shape.
 */
function tokenLists(s: string): string {
    return s.replace(new RegExp(`(?:${TOKEN}(?:\\s*[,;:|]\\s*|\\s+|[.\\-_])){5,}${TOKEN}`, "g"), (list) => {
        const tokens = [...list.matchAll(new RegExp(TOKEN, "g"))].map((m) => m[0].replace(/^["']([\s\S]*)["']$/, "$1").replace(/^0x/i, ""));
        // Each run of six or more tokens of one kind, wherever it starts: a label glued in front (`password: 84,114,...`)
        // is a token of another kind.
        const runsOf = (kind: (t: string) => boolean): string[][] => {
            const runs: string[][] = [[]];
            for (const t of tokens) {
                if (kind(t)) runs[runs.length - 1].push(t);
                else runs.push([]);
            }
            return runs.filter((run) => run.length >= 6);
        };
        const readings = [
            ...runsOf((t) => t.length === 1).map((run) => run.join("")),
            ...runsOf((t) => /^\d{1,3}$/.test(t) && Number(t) <= 255).map((run) => printable(Buffer.from(run.map(Number)))),
            ...runsOf((t) => /^[0-9a-f]{2}$/i.test(t)).map((run) => printable(Buffer.from(run.join(""), "hex"))),
        ].filter((r) => r !== "");
        return readings.length > 0 ? `${list} ${readings.join(" ")}` : list;
    }).replace(/\S([-._,;:| ])\S(?:\1\S){4,}/gu, (spaced) => `${spaced} ${Array.from(spaced).filter((_, i) => i % 2 === 0).join("")}`);
}
/** One token of such a list: quoted (any one to three characters), or one to three letters and digits, maybe after `0x`. */
const TOKEN = String.raw`(?:"[^"\s]{1,3}"|'[^'\s]{1,3}'|(?:0x)?[0-9A-Za-z]{1,3})`;

/**
 * Bytes as text: the whole reading when it is mostly text (a short secret encoded alone), else its printable stretches
 * as long as the window a secret is matched by, or the shortest secret if that is shorter (a secret after a garbage
 * prefix). Latin-1's stretches are ASCII only, so that random bytes seldom make one.
 */
function printable(bytes: Buffer): string {
    const reading = bytesAsText(bytes);
    if (mostlyText(reading)) return reading.text.replace(/[\x00-\x1f\x7f]/g, " ");
    const least = Math.min(WINDOW, ...[...SECRETS].map((secret) => secret.length));
    const utf8 = bytes.toString("utf8").replace(/\x00/g, "").split(/[\x00-\x1f\x7f-\x9f\ufffd]+/);
    const ascii = bytes.toString("latin1").replace(/\x00/g, "").split(/[^\x20-\x7e]+/);
    return [...utf8, ...ascii].filter((stretch) => stretch.length >= least).join(" ");
}

/** NFKC (a decomposed ü, full-width letters), without invisible characters a page may put in a word (zero-width, soft hyphen). */
function unicodeForms(s: string): string {
    return s.normalize("NFKC").replace(/[\u00ad\u200b-\u200f\u2060\ufeff]/g, "");
}

/** An e-mail address written against scrapers: `alice (at) example [dot] org`, `alice at example dot org`. */
function spelledOutAddress(s: string): string {
    return s.replace(/\s*[([{<]\s*at\s*[)\]}>]\s*|\s+at\s+/gi, "@").replace(/\s*[([{<]\s*dot\s*[)\]}>]\s*|\s+dot\s+/gi, ".");
}

/** White space removed: a server that wraps long lines, or pads characters. */
function noWhiteSpace(s: string): string {
    return s.replace(/\s+/g, "");
}

const DECODERS: Array<(s: string) => string> = [
    backslashEscapes,
    byteEscapesAsUtf8,
    doubledQuotes,
    percent,
    plusAsSpace,
    htmlEntities,
    quotedPrintable,
    base64Runs,
    hexRuns,
    tokenLists,
    unicodeForms,
    spelledOutAddress,
    noWhiteSpace,
];

function codePoint(n: number): string {
    return n >= 0 && n <= 0x10ffff ? String.fromCodePoint(n) : "";
}

/** HTML's named entities an echo may use: the markup five, HTML5's ASCII punctuation, and Latin-1's letters. */
const ENTITIES: Record<string, string> = (() => {
    const table: Record<string, string> = {
        amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", shy: "\u00ad", zwsp: "\u200b", zwj: "\u200d", zwnj: "\u200c", commat: "@", period: ".", lowbar: "_", plus: "+", equals: "=",
        percnt: "%", excl: "!", num: "#", dollar: "$", lpar: "(", rpar: ")", ast: "*", comma: ",", colon: ":", semi: ";", quest: "?",
        lsqb: "[", rsqb: "]", lbrack: "[", rbrack: "]", bsol: "\\", hat: "^", grave: "`", lcub: "{", rcub: "}", lbrace: "{", rbrace: "}",
        verbar: "|", vert: "|", sol: "/", tab: "\t", newline: "\n", hyphen: "-", dash: "-", tilde: "~", szlig: "ß", aelig: "æ", oslash: "ø",
        eth: "ð", thorn: "þ", euro: "€", pound: "£", yen: "¥", sect: "§", deg: "°", micro: "µ", iquest: "¿", iexcl: "¡", laquo: "«", raquo: "»",
    };
    // Latin-1's accented letters, by HTML's rule: base letter + accent name (uuml, eacute, Agrave, ...).
    const accents: Record<string, string> = { grave: "\u0300", acute: "\u0301", circ: "\u0302", tilde: "\u0303", uml: "\u0308", ring: "\u030a", cedil: "\u0327" };
    for (const base of "aeiouyncAEIOUYNC") for (const [name, mark] of Object.entries(accents)) table[`${base}${name}`] = `${base}${mark}`.normalize("NFC");
    return table;
})();

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
