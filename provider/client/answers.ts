/**
 * What an EDIS answer means, decided once here. Rule (DESIGN.md section 4): EDIS's words may make an outcome safer,
 * never riskier. Costly outcomes rest only on what cannot be misread: "nothing happened" only if the request never left
 * this machine; "cancelled" only on `"status": "success"`; "gone" only on the listing plus `refusedInEdisForm`.
 */
import type { EdisApiError } from "./errors";
import { idsInAnswer, jsonOf } from "./namedIds";

/** Exactly the specification's `status` word, in any case; "ok" or "Success!" are not success. */
export function isSuccessWord(status: unknown): boolean {
    return typeof status === "string" && status.trim().toLowerCase() === "success";
}

/** What a refusal's words say that may only make the outcome safer. */
export interface SaferReadings {
    /** "Try again later", maintenance, internal error: a read asks again. */
    later?: boolean;
    /** Words about the login: a wait for provisioning stops instead of polling. */
    credentials?: boolean;
    /** Words about the session: a repeatable Management API call renews it. */
    session?: boolean;
    /** Words of a server that is there, a refused request or the account: never "gone". */
    keepsServer?: boolean;
}

const LATER =
    /\b(temporar(y|ily)|try (it )?again|retry|later|maintenance|unavailable|overload(ed)?|busy|too many|rate ?limit(ed)?|timed? ?out|timeout|throttl\w*|in progress|internal|server error|exception|database|sqlstate|deadlock|fatal|gateway|upstream|backend)\b/;
const CREDENTIAL_WORDS = /\b(password|credentials?|unauthori[sz]ed|not authori[sz]ed|unauthenticated|authentication|authenticate|log ?in|login|access denied)\b/;
const SESSION_WORDS = /\b(signature|session|expired|valid until|api ?access)\b/;
const KEEPS_SERVER_WORDS =
    /\b(suspend\w*|pending|active|running|provision\w*|in use|exists?|locked|overdue|unpaid|endpoint|route|method|not implemented|parameters?|missing|invalid|bad request|pw|e ?mail|client|account|user|forbidden|permission|denied)\b/;

/** Reads all of an answer's text (more words can only make it safer); `_`/`-` read as spaces. */
export function saferReadingsOf(text: string | undefined): SaferReadings {
    const words = (text ?? "").replace(/(?<=[a-z0-9])[_-](?=[a-z0-9])/gi, " ").toLowerCase();
    return { later: LATER.test(words), credentials: CREDENTIAL_WORDS.test(words), session: SESSION_WORDS.test(words), keepsServer: KEEPS_SERVER_WORDS.test(words) };
}

/** A failed paid write made nothing only if never sent: any answer may come from a server that acted. */
export function nothingHappened(e: EdisApiError): boolean {
    return e.kind === "not_sent";
}

/**
 * A definite "no" that corroborates "gone": HTTP 404, one JSON object of a failure status and string values only, no id
 * or KVM named, none of the safer words. Nothing else corroborates (a 400, a 200 "suspended", a time-out).
 */
export function refusedInEdisForm(e: EdisApiError): boolean {
    if (e.kind !== "refused" || e.status !== 404) return false;
    const r = e.saferReadings;
    if (r.later || r.credentials || r.keepsServer) return false;
    const body = jsonOf(e.rawAnswer ?? "");
    if (!body || typeof body !== "object" || Array.isArray(body)) return false;
    if (!Object.entries(body).every(([key, value]) => BARE_REFUSAL_KEYS.test(key) && typeof value === "string")) return false;
    if (!FAILURE_STATUS.test(String((body as Record<string, unknown>).status))) return false;
    const { fields, kvms } = idsInAnswer(e.rawAnswer);
    return fields.orderIds.length + fields.serviceIds.length + fields.invoiceIds.length + kvms.length === 0;
}

const BARE_REFUSAL_KEYS = /^(status|message|msg|error|reason)$/i;
/** The failure status words known of EDIS; another word corroborates nothing. */
const FAILURE_STATUS = /^\s*(error|failed)\s*$/i;

export function mayRetry(e: EdisApiError): boolean {
    if (e.kind === "network" || e.kind === "timeout" || e.kind === "rate_limited" || e.kind === "server_error") return true;
    return e.kind === "refused" && !!e.saferReadings.later;
}

/** Stop waiting for provisioning when credentials were refused, by status or in words. */
export function stopsWaiting(e: EdisApiError): boolean {
    return e.kind === "credentials" || e.kind === "session" || !!e.saferReadings.credentials;
}

export function refusesSession(e: EdisApiError): boolean {
    return e.kind === "credentials" || e.kind === "session" || (e.kind === "refused" && !!e.saferReadings.session);
}
