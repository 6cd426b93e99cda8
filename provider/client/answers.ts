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
const SERVER_FAILED = /\b(internal|server error|exception|database error|fatal|unexpected error|an error occurr?ed while processing)\b/;

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
    const text = wordsOf(facts.message);
    if (LATER.test(text)) return "retry";
    const subject = notFoundSubject(text);
    if (subject === "server") return "gone";
    if (subject === "account" || CREDENTIAL_WORDS.test(text) || status === 401 || status === 403) return "credentials";
    if (saysCancelled(text)) return "cancelled";
    if (status >= 500 || SERVER_FAILED.test(text)) return "unknown";
    // A 404 in EDIS's form without words of its own is EDIS's "not found"; with other words it is what they say.
    if (status === 404 && /^(error|failed|not found|404|)$/.test(text)) return "gone";
    return "refused";
}

/** Whose "not found" the text is: the server's, the account's, something else's; undefined when it says none. */
function notFoundSubject(text: string): "server" | "account" | "other" | undefined {
    for (const clause of text.split(/[.,;:!?()\[\]"]/)) {
        const after = NOT_FOUND_AFTER.exec(clause);
        const before = after ? null : NOT_FOUND_BEFORE.exec(clause);
        if (!after && !before) continue;
        let words = (after ? clause.slice(0, after.index) : before![1]).trim().split(/\s+/).filter(Boolean);
        // "the backend for this service" is about the backend: the head noun stands before the first preposition.
        const prep = words.findIndex((w) => PREPOSITIONS.test(w));
        if (prep > 0) words = words.slice(0, prep);
        words = words.filter((w) => !FILLERS.test(w));
        if (before) words = words.slice(0, 1);
        let head = words[words.length - 1];
        // "service id", "order id": the noun before the id says whose id it is.
        if ((head === "id" || head === "number" || head === "#") && words.length > 1) head = words[words.length - 2];
        if (head === undefined) return "server"; // "Not found", "Not found: 1003"
        if (SERVER_NOUNS.has(head)) return "server";
        if (ACCOUNT_NOUNS.has(head)) return "account";
        return "other";
    }
    return undefined;
}

/** "already cancelled" and its kin, in a clause without a negation, a condition or a future. */
function saysCancelled(text: string): boolean {
    return text
        .split(/[.;!?]|\bbut\b/)
        .map((c) => c.trim())
        .some((clause) => CANCELLED.test(clause) && !NOT_OR_IF.test(clause));
}

/** A Management API refusal that is about the session (signature, expiry, API Access), not the request. */
const SESSION_WORDS = /\b(signature|session|expired|valid until|api ?access)\b/;

/** Whether a refused Management API answer's message is about the session, so a new session may mend it. */
export function refusesSession(message: string | undefined): boolean {
    return SESSION_WORDS.test(wordsOf(message));
}
