/**
 * What an EDIS answer means: the one place that reads EDIS's words. Every other module acts on the meaning
 * this returns (through `EdisApiError.meaning`), never on the text itself.
 *
 *   gone         EDIS says, in its own form, that it does not know the service, KVM or product asked about
 *   cancelled    EDIS says the service is cancelled already (cancel/product's refusal of a second cancel)
 *   credentials  the e-mail or password was refused
 *   refused      EDIS understood the request and refused it: nothing happened, and asking again will not help
 *   retry        EDIS says it cannot answer now: nothing is known about the thing asked about; ask again later
 *   unknown      no usable answer (network, time-out, 5xx, a page that is not EDIS's): anything may have happened
 *
 * The specification leaves the wording and shape of failures open, so the rules read for meaning, cautiously:
 * a billed server leaves state on "gone" or "cancelled" only, so those two need words that say exactly that about
 * the thing asked about. "Try again" wins over everything ("backend not found, try again later" is not gone);
 * a negation or a condition turns "cancelled" around ("cannot be cancelled", "not yet terminated"); "not found"
 * counts only for a service, KVM, product or server, or alone ("page not found" from a proxy, "backend not found",
 * "location not found" say nothing about the server). Status words are read in any case; HTML entities and tags are
 * decoded first, and `_`/`-` between words read as spaces. The table in test/answers.test.ts is the rule book.
 */

export type Meaning = "gone" | "cancelled" | "credentials" | "refused" | "retry" | "unknown";

/** What is known of one answer, from the transport. */
export interface AnswerFacts {
    /** HTTP status; undefined when no answer arrived at all (network failure, time-out). */
    httpStatus?: number;
    /** The body is a JSON object with a `status` word: EDIS's own form. */
    edisShaped: boolean;
    /** The server's message (`message`, `msg`, `error`, `result`), when it gave one. */
    message?: string;
    /** The answer's `status` word, when it has one. */
    statusWord?: string;
}

/** Whether a `status` word is EDIS's "success", in any case or spacing. */
export function isSuccessWord(status: unknown): boolean {
    return typeof status === "string" && /^\s*(success|succeeded|successful|ok)\s*$/i.test(status);
}

const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", "#39": "'" };

/** The message as words: entities decoded, tags removed, `_`/`-` joins read as spaces, lower case, one space. */
export function wordsOf(message: string | undefined): string {
    return (message ?? "")
        .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
        .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
        .replace(/&([a-z0-9#]+);/gi, (m, n: string) => NAMED[n.toLowerCase()] ?? m)
        .replace(/<[^>]*>/g, " ")
        .replace(/(?<=[a-z0-9])[_-](?=[a-z0-9])/gi, " ")
        .replace(/\s+/g, " ")
        .trim()
        .toLowerCase();
}

/** EDIS cannot answer now: whatever else the text says, nothing is known about the thing asked about. */
const LATER =
    /\b(temporar(y|ily)|try (it )?again|retry|later|maintenance|unavailable|overload(ed)?|busy|too many|rate limit(ed)?|timed? ?out|timeout|throttl\w*|in progress|being (processed|provisioned|set up|created))\b/;

/** The server failed while answering: whatever it was asked to do may or may not have happened. */
const SERVER_FAILED =
    /\b(internal|server error|exception|database|sqlstate|deadlock|duplicate entry|undefined (index|offset|variable|property|method)|fatal|unexpected|curl|gateway|upstream|backend|proxy|connection (reset|refused|closed|aborted|lost)|socket|segfault|stack trace|traceback|null pointer|an error occurr?ed while processing)\b/;

/** Says that something was made or is under way: for a paid write, anything but a refusal. */
const MADE = /\b(placed|created|accepted|received|queued|submitted|processing|processed|pending|charged|paid|in review|fraud|partially)\b/;

/**
 * Says that the request was refused before anything happened. A failure that says none of this, and nothing else
 * this module knows, is "unknown": for a paid write that is the safe reading, and a read keeps state on it.
 */
const REFUSAL =
    /\b(invalid|missing|required|not (allowed|permitted|available|offered|sold|supported|possible|valid|enabled)|out of stock|sold out|insufficient|not enough|denied|rejected|refused|exceeds?|exceeded|limit reached|does not match|do not match|wrong|bad request|disabled|could not be processed|cannot|can ?not|can't|unable to|must|only possible|no (credit|funds|stock)|unsupported|malformed|forbidden|not yet|not active|inactive|already requested|outstanding|only at|closed|locked|not (a|an|the|your)\b|no kvm|not (yet )?(assigned|provisioned|ready)|at the moment)\b/;

/** Status words that say the request failed; any other word (`pending`, `queued`, ...) is not a refusal. */
const FAILURE_STATUS = /^(error|errors|failed|fail|failure|denied|refused|rejected|invalid)\b/;

/**
 * A negation, a condition or a future anywhere in the clause turns "cancelled" around or leaves it open: "not yet
 * cancelled", "is terminated only at the end of the term", "will be cancelled after", "if it is already cancelled".
 */
const NOT_OR_IF =
    /\b(not|no|never|cannot|can ?not|can't|couldn't|won't|unable|fail(ed|s|ure)?|before|until|unless|if|whether|pending|yet|only|must|requested|scheduled|awaiting|will|would|shall|after|when|once|end of|upon|minimum)\b/;

/**
 * Says the service is cancelled already: "already cancelled", "has been terminated". A cancellation that is only
 * requested ("an outstanding cancellation request exists") is not: the server runs, and is billed, until it ends.
 */
const CANCELLED =
    /\b(already (been )?(cancell?ed|terminated)|(is|was|has been|have been|been) (already )?(cancell?ed|terminated)|cancell?ed already|terminated already|(service|product|it) (is )?(cancell?ed|terminated)$)/;


/** "… not found", "… does not exist", "… could not be found", "… is unknown": the subject stands before it. */
const NOT_FOUND_AFTER =
    /\b(?:(?:was|is|were|are|could|can|has been|have been)\s+)?(?:not\s+(?:be\s+)?found|cannot\s+be\s+found|does\s*n[o']?t\s+exist|do\s+not\s+exist|no\s+longer\s+exists?|is\s+unknown)\b/;
/** "no such …", "unknown …": the subject follows. */
const NOT_FOUND_BEFORE = /\b(?:no such|unknown|nonexistent|non existent|non existing)\s+((?:[a-z0-9#]+\s*){1,3})/;

/**
 * Head nouns whose "not found" is about the thing asked about: a server, its service or its product, or a
 * traffic hook or DNS record of one (hooks/del, rDNS). Delete and read act on "gone" only after the endpoint's own
 * checks (a server also needs both id lookups to agree), so a noun here never drops a billed server alone.
 */
const SERVER_NOUNS = new Set([
    ...["service", "services", "product", "products", "kvm", "kvms", "vps", "server", "servers", "serviceid", "kvmid", "hosting", "id"],
    ...["hook", "hooks", "webhook", "webhooks", "record", "records"],
]);
/** Head nouns whose "not found" means the login is wrong. */
const ACCOUNT_NOUNS = new Set(["user", "client", "account", "customer", "email", "mail", "login"]);
const FILLERS = /^(the|a|an|this|that|your|its|requested|given|specified|such|#?\d+)$/;
const PREPOSITIONS = /^(for|of|with|on|in|at|by|from|to|behind|under)$/;

const CREDENTIAL_WORDS = /\b(password|credentials?|unauthori[sz]ed|unauthenticated|authentication|authenticate|log ?in|login failed|access denied|forbidden)\b/;

/** The meaning of one failed answer (a successful one is not asked about). */
export function meaningOf(facts: AnswerFacts): Meaning {
    const status = facts.httpStatus;
    if (status === undefined) return "unknown";
    if (status === 429) return "retry";
    if (!facts.edisShaped) {
        // Not EDIS's form: a proxy, a wrong host, a maintenance page. Only the HTTP status speaks, and it never says "gone".
        if (status === 401 || status === 403) return "credentials";
        if (status >= 400 && status < 500 && status !== 404 && status !== 408) return "refused";
        return "unknown";
    }
    // A status word that is not a failure ("pending", "queued") says something is under way; one that is may say why.
    const statusText = wordsOf(facts.statusWord);
    if (facts.statusWord !== undefined && !FAILURE_STATUS.test(statusText)) return "unknown";
    const text = facts.message ? wordsOf(facts.message) : statusText;
    if (LATER.test(text)) return "retry";
    // A server that failed, or words that something was made, say nothing else about the thing asked about.
    if (status >= 500 || SERVER_FAILED.test(text) || MADE.test(text)) return "unknown";
    const subject = notFoundSubject(text);
    if (subject === "server") return "gone";
    if (subject === "account" || CREDENTIAL_WORDS.test(text) || status === 401 || status === 403) return "credentials";
    if (saysCancelled(text)) return "cancelled";
    // A 404 in EDIS's form without words of its own is EDIS's "not found"; with other words it is what they say.
    if (status === 404 && /^(error|failed|not found|404|)$/.test(text)) return "gone";
    // A client error (HTTP 4xx) is a refusal by its status alone; a 200 must say so in words.
    if (subject === "other" || REFUSAL.test(text) || (status >= 400 && status < 500 && status !== 408)) return "refused";
    return "unknown";
}

/** Words that leave a "not found" open: "not found or suspended", "in active services", "not found (yet)". */
const OPEN_ENDED = /\b(or|active|request|parameter|yet|queue|queued|provisioning|pending|suspended|currently)\b/;
/** An id in a message ("1003", "kvm_101003_1", "#12"): not a word of the subject. */
const ID_TOKEN = /[\d_#]/;

/** The subject words of a phrase: before the first preposition, without fillers and ids. */
function subjectWords(words: string[]): string[] {
    const prep = words.findIndex((w) => PREPOSITIONS.test(w));
    return (prep >= 0 ? words.slice(0, prep) : words).filter((w) => !FILLERS.test(w) && !ID_TOKEN.test(w));
}

/**
 * Whose "not found" the text is: the server's (every subject word names the thing asked about: "service",
 * "service id", "KVM kvm_1"), the account's, something else's ("database server", "location"); undefined when it
 * says none.
 */
function notFoundSubject(text: string): "server" | "account" | "other" | undefined {
    for (const clause of text.split(/[.,;:!?()\[\]"]/)) {
        const after = NOT_FOUND_AFTER.exec(clause);
        const before = after ? null : NOT_FOUND_BEFORE.exec(clause);
        if (!after && !before) continue;
        const raw = (after ? clause.slice(0, after.index) : before![1]).trim().split(/\s+/).filter(Boolean);
        // "An unknown error occurred" names no thing that is unknown.
        if (before && /^(error|errors|problem|issue|reason|failure)$/.test(raw[0] ?? "")) continue;
        const words = subjectWords(before ? raw.slice(0, 2) : raw);
        if (OPEN_ENDED.test(text)) return "other";
        if (words.length === 0) return after ? "server" : "other"; // "Not found: 1003"
        if (words.every((w) => SERVER_NOUNS.has(w) || w === "number")) return "server";
        if (words.some((w) => ACCOUNT_NOUNS.has(w)) && words.every((w) => ACCOUNT_NOUNS.has(w) || SERVER_NOUNS.has(w))) return "account";
        return "other";
    }
    return undefined;
}

/**
 * "already cancelled" and its kin: about the service (the subject is the service, product, KVM or server, or none),
 * in an answer without a negation, a condition or a future anywhere ("Cancelled already? No: ...").
 */
function saysCancelled(text: string): boolean {
    if (NOT_OR_IF.test(text)) return false;
    return text
        .split(/[.;:!?]|\bbut\b/)
        .map((c) => c.trim())
        .some((clause) => {
            const m = CANCELLED.exec(clause);
            if (!m) return false;
            const words = subjectWords(clause.slice(0, m.index).trim().split(/\s+/).filter(Boolean));
            return words.every((w) => SERVER_NOUNS.has(w) || /^(it|has|have|had|is|was|were|been|already)$/.test(w));
        });
}

/** A Management API refusal that is about the session (signature, expiry, API Access), not the request. */
const SESSION_WORDS = /\b(signature|session|expired|valid until|api ?access)\b/;

/** Whether a refused Management API answer's message is about the session, so a new session may mend it. */
export function refusesSession(message: string | undefined): boolean {
    return SESSION_WORDS.test(wordsOf(message));
}
