/**
 * What an EDIS answer means: decided here, once. Callers ask the questions at the bottom of this file; they never
 * read EDIS's words themselves.
 *
 * THE RULE (DESIGN.md section 4): EDIS's words may make an outcome safer, never riskier. The specification shows no
 * failure wording at all, and the one failure the vendor documents (`{"status":"failed","orderid":...}` when out of
 * stock) comes with an order that was created. So what costs money rests only on what cannot be misread:
 *
 *   risky outcome                                   rests on
 *   a paid write made nothing (it may be sent again)  the request never left this machine (`nothingHappened`)
 *   a billed server is cancelled                      cancel/product answered `"status": "success"`
 *   a billed server is gone                           EDIS's state: its KVM is not in the account's listing, and
 *                                                     both id lookups answer HTTP 404 in EDIS's own form, naming
 *                                                     no id and no server that is there (`refusedInEdisForm`)
 *
 * Words are read for one thing only: to choose the safer of two readings (SaferReadings below). No word can turn a
 * failure into "nothing happened", "cancelled" or "gone", because no code path asks the words that.
 *
 * An answer's class comes from its form (transport.ts sets it as the error's `kind`):
 *
 *   not_sent           the request never left this machine: no connection, no TLS session, no usable host
 *   network, timeout   sent, and no answer came (a connection lost, a time-out): anything may have happened
 *   credentials        HTTP 401 or 403
 *   rate_limited       HTTP 429
 *   server_error       HTTP 5xx or 408
 *   unexpected_answer  not EDIS's form (not one JSON object with a `status` word: an HTML page, a PHP notice before
 *                      the JSON, an empty body), or a success whose shape the client cannot read
 *   refused            EDIS's form, a `status` other than "success", HTTP 2xx or 4xx
 *   session            a Management API host refused a new session too (management.ts)
 */
import type { EdisApiError } from "./errors";
import { idsInAnswer } from "./namedIds";

/** EDIS's success: exactly the specification's `status` word, in any case. "ok", "succeeded" or "Success!" are not. */
export function isSuccessWord(status: unknown): boolean {
    return typeof status === "string" && status.trim().toLowerCase() === "success";
}

/** What a refusal's words say that may only make the outcome safer (set by the transport, read below). */
export interface SaferReadings {
    /** "Try again later", "maintenance" or a failure inside the server ("internal error"): no word on the thing asked; a read asks again. */
    later?: boolean;
    /** Words about the e-mail, password or login: a wait for provisioning stops instead of polling for minutes. */
    credentials?: boolean;
    /** Words about the session (signature, expiry, API access): a repeatable Management API call renews it. */
    session?: boolean;
    /** Words of a server that is there ("suspended"), a refused form of request ("missing parameter") or the asker ("account"): never "gone". */
    keepsServer?: boolean;
}

const LATER =
    /\b(temporar(y|ily)|try (it )?again|retry|later|maintenance|unavailable|overload(ed)?|busy|too many|rate ?limit(ed)?|timed? ?out|timeout|throttl\w*|in progress|internal|server error|exception|database|sqlstate|deadlock|fatal|gateway|upstream|backend)\b/;
const CREDENTIAL_WORDS = /\b(password|credentials?|unauthori[sz]ed|not authori[sz]ed|unauthenticated|authentication|authenticate|log ?in|login|access denied)\b/;
const SESSION_WORDS = /\b(signature|session|expired|valid until|api ?access)\b/;
const KEEPS_SERVER_WORDS =
    /\b(suspend\w*|pending|active|running|provision\w*|in use|exists?|locked|overdue|unpaid|endpoint|route|method|not implemented|parameters?|missing|invalid|bad request|pw|e ?mail|client|account|user|forbidden|permission|denied)\b/;

/** The safer readings of all of an answer's text, not only its message (more words can only make it safer); `_`/`-` read as spaces. */
export function saferReadingsOf(text: string | undefined): SaferReadings {
    const words = (text ?? "").replace(/(?<=[a-z0-9])[_-](?=[a-z0-9])/gi, " ").toLowerCase();
    return { later: LATER.test(words), credentials: CREDENTIAL_WORDS.test(words), session: SESSION_WORDS.test(words), keepsServer: KEEPS_SERVER_WORDS.test(words) };
}

// ---- the questions callers ask --------------------------------------------------------------------------------

/**
 * A paid write (add/order, add/upgrade, hooks/set) failed: did it certainly make nothing, so that its journal entry may
 * go and it may be sent again? Only when the request never left this machine: any answer, whatever its status and words,
 * may come from a server that acted (a 403 "order placed; payment not authorised" did). Wrong credentials do not block a
 * write this way: the preflight's calls, with the same credentials, fail before the paid write is sent.
 */
export function nothingHappened(e: EdisApiError): boolean {
    return e.kind === "not_sent";
}

/**
 * A lookup failed with a definite "no" in EDIS's own form, what corroborates "gone" beside the listing (the table above):
 * HTTP 404 and a bare refusal, by its shape: one JSON object of a failure status (`error`, `failed`) and words only,
 * every value a string (a field, a number or a record describes something that is there); no id or KVM in any JSON the
 * text holds; none of the safer words ("try again", the login, a refused request, a server that is there). Any other
 * words count ("not found", "terminated"). Nothing else corroborates (a 400, a 200 "account suspended", a time-out, a 429).
 */
export function refusedInEdisForm(e: EdisApiError): boolean {
    if (e.kind !== "refused" || e.status !== 404) return false;
    const r = e.saferReadings;
    if (r.later || r.credentials || r.keepsServer) return false;
    let body: unknown;
    try {
        body = JSON.parse((e.rawAnswer ?? "").replace(/^\uFEFF/, "").trim());
    } catch {
        return false;
    }
    if (!body || typeof body !== "object" || Array.isArray(body)) return false;
    if (!Object.entries(body).every(([key, value]) => BARE_REFUSAL_KEYS.test(key) && typeof value === "string")) return false;
    if (!FAILURE_STATUS.test(String((body as Record<string, unknown>).status))) return false;
    const { fields, kvms } = idsInAnswer(e.rawAnswer);
    return fields.orderIds.length + fields.serviceIds.length + fields.invoiceIds.length + kvms.length === 0;
}

/** The fields of a bare refusal: its status and its words. */
const BARE_REFUSAL_KEYS = /^(status|message|msg|error|reason)$/i;
/** The failure status words known of EDIS (`failed` is documented; `error`): another word corroborates nothing. */
const FAILURE_STATUS = /^\s*(error|failed)\s*$/i;

/** May the same request be sent again later (by the retry policy of an endpoint that may be repeated)? */
export function mayRetry(e: EdisApiError): boolean {
    if (e.kind === "network" || e.kind === "timeout" || e.kind === "rate_limited" || e.kind === "server_error") return true;
    return e.kind === "refused" && !!e.saferReadings.later;
}

/** Stop waiting for provisioning: the credentials were refused, by status or in words (stopping is the safe side). */
export function stopsWaiting(e: EdisApiError): boolean {
    return e.kind === "credentials" || e.kind === "session" || !!e.saferReadings.credentials;
}

/** A repeatable Management API call was refused for its session (HTTP 401/403, or words): renew it, send once more? */
export function refusesSession(e: EdisApiError): boolean {
    return e.kind === "credentials" || e.kind === "session" || (e.kind === "refused" && !!e.saferReadings.session);
}
