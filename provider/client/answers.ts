/**
 * What an EDIS answer means: decided here, once. Callers ask the questions at the bottom of this file; they never
 * read EDIS's words themselves.
 *
 * THE RULE (DESIGN.md section 4): EDIS's words may make an outcome safer, never riskier. The specification shows no
 * failure wording at all, and the one failure the vendor documents (`{"status":"failed","orderid":...}` when out of
 * stock) comes with an order that was created. So what costs money rests only on what cannot be misread:
 *
 *   risky outcome                                   rests on
 *   a paid write made nothing (it may be sent again)  the request never left this machine, or HTTP 401/403 whose
 *                                                     answer holds no digit and no "success" (`nothingHappened`)
 *   a billed server is cancelled                      cancel/product answered `"status": "success"`
 *   a billed server is gone                           EDIS's state: its KVM is not in the account's listing, and
 *                                                     both id lookups answer HTTP 404 in EDIS's own form, naming
 *                                                     no id in their fields (`refusedInEdisForm`)
 *
 * Words are read for one thing only: to choose the safer of two readings. "Try again later" or "internal error"
 * makes a refusal a retry (a lookup so answered corroborates nothing); words about the password make a provisioning wait stop; words
 * about the session renew a Management API session before a call that may be repeated. No word can turn a failure
 * into "nothing happened", "cancelled" or "gone", whatever it says, because no code path asks the words that.
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
    /**
     * "Try again", "temporarily", "maintenance", "rate limit", or a failure inside the server ("internal error",
     * "database", "exception"): the refusal says nothing about the thing asked about; a read asks again later.
     */
    later?: boolean;
    /** Words about the e-mail, password or login: a wait for provisioning stops instead of polling for minutes. */
    credentials?: boolean;
    /** Words about the session (signature, expiry, API access): a repeatable Management API call renews it. */
    session?: boolean;
}

const LATER =
    /\b(temporar(y|ily)|try (it )?again|retry|later|maintenance|unavailable|overload(ed)?|busy|too many|rate ?limit(ed)?|timed? ?out|timeout|throttl\w*|in progress|internal|server error|exception|database|sqlstate|deadlock|fatal|gateway|upstream|backend)\b/;
const CREDENTIAL_WORDS = /\b(password|credentials?|unauthori[sz]ed|unauthenticated|authentication|authenticate|log ?in|login|access denied)\b/;
const SESSION_WORDS = /\b(signature|session|expired|valid until|api ?access)\b/;

/** The safer readings a refusal's message allows (lower-cased, `_`/`-` between words read as spaces). */
export function saferReadingsOf(message: string | undefined): SaferReadings {
    const words = (message ?? "").replace(/(?<=[a-z0-9])[_-](?=[a-z0-9])/gi, " ").toLowerCase();
    return { later: LATER.test(words), credentials: CREDENTIAL_WORDS.test(words), session: SESSION_WORDS.test(words) };
}

// ---- the questions callers ask --------------------------------------------------------------------------------

/**
 * A paid write (add/order, add/upgrade, hooks/set) failed: did it certainly make nothing, so that the journal entry
 * may go and the write may be sent again? Only when the request never left this machine, or the credentials were
 * refused by HTTP status (which the preflight has checked already) and the answer names nothing it made. Every
 * other failure, whatever its words and status, is "unknown".
 */
export function nothingHappened(e: EdisApiError): boolean {
    if (e.kind === "not_sent") return true;
    if (e.kind !== "credentials") return false;
    const names = (e.serviceIds?.length ?? 0) > 0 || e.orderId !== undefined || e.invoiceId !== undefined || (e.mentioned?.length ?? 0) > 0;
    // Ids may come in shapes no reader knows (another language, a dump, a page): a refusal of the login clears a paid
    // write only when its answer holds no digit at all, and no "success".
    const raw = e.rawAnswer ?? "";
    return !names && !/\p{Nd}/u.test(raw) && !/success/i.test(raw);
}

/**
 * A lookup failed with a definite "no" in EDIS's own form: what corroborates, beside the account's listing, that a
 * server is gone. HTTP 404 with EDIS's JSON and no id in its fields; any words (not found, terminated, cancelled,
 * ...), except those that make it safer: "try again", or words about the login. Never another status (a 400
 * "missing parameter", a 200 "account suspended"), a time-out, a server error, a page that is not EDIS's, or a 429.
 */
export function refusedInEdisForm(e: EdisApiError): boolean {
    const { fields } = idsInAnswer(e.rawAnswer);
    const named = fields.orderIds.length + fields.serviceIds.length + fields.invoiceIds.length > 0;
    return e.kind === "refused" && e.status === 404 && !named && !e.saferReadings.later && !e.saferReadings.credentials;
}

/** May the same request be sent again later (by the retry policy of an endpoint that may be repeated)? */
export function mayRetry(e: EdisApiError): boolean {
    if (e.kind === "network" || e.kind === "timeout" || e.kind === "rate_limited" || e.kind === "server_error") return true;
    return e.kind === "refused" && !!e.saferReadings.later;
}

/** Stop waiting for provisioning: the credentials were refused, by status or in words (stopping is the safe side). */
export function stopsWaiting(e: EdisApiError): boolean {
    return e.kind === "credentials" || e.kind === "session" || !!e.saferReadings.credentials;
}

/**
 * A Management API call was refused for its session: renew the session and send it once more? By HTTP 401/403 for
 * any call; by words too only for a call that may be repeated (a repeated hooks/set may add a second hook).
 */
export function refusesSession(e: EdisApiError, repeatable: boolean): boolean {
    if (e.kind === "credentials" || e.kind === "session") return true;
    return repeatable && e.kind === "refused" && !!e.saferReadings.session;
}
