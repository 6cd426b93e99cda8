/**
 * One HTTP exchange with EDIS: POST, a per-request time limit, and the mapping of every failure to an
 * `EdisApiError` of the right kind. No retries here (see retry.ts) and no knowledge of endpoints' shapes.
 */
import fetch from "node-fetch";
import { EdisApiError, EdisErrorKind, Redactor } from "./errors";
import { parseRetryAfter } from "./retry";
import { serverMessageOf } from "./schemas";

/** Larger answers are refused: no EDIS answer comes near this, and an endless body must not fill memory. */
export const MAX_ANSWER_BYTES = 10 * 1024 * 1024;

export interface PostRequest {
    /** The endpoint's path, e.g. "get/products", used in errors and logs. */
    endpoint: string;
    url: string;
    encoding: "form" | "json";
    fields: Record<string, string | number | boolean>;
    timeoutMs: number;
    redactor: Redactor;
    userAgent: string;
}

export function kindForStatus(status: number): EdisErrorKind {
    if (status === 401 || status === 403) return "credentials";
    if (status === 404) return "not_found";
    if (status === 429) return "rate_limited";
    if (status >= 500) return "server_error";
    return "bad_request";
}

/**
 * Words that say EDIS does not know the service, KVM or product asked about. Deliberately narrow: "An unknown
 * error occurred" is not one of them, because "not found" is what lets a billed server leave state.
 */
const NOT_FOUND_WORDS = /\bnot\s+found\b|does\s+not\s+exist|\bno\s+such\s+\w+|\bunknown\s+(service|kvm|product|location|serviceid|kvm_?id|location_id)\b/i;

/**
 * A 2xx answer whose `status` is not "success": what kind of failure its message describes. A server that
 * reports its own failure this way ("internal error", "try again") is a server error, so reads retry it.
 */
function kindForRefusal(message: string | undefined): EdisErrorKind {
    if (message && /credential|password|unauthori[sz]ed|authentication|login/i.test(message)) return "credentials";
    if (message && NOT_FOUND_WORDS.test(message)) return "not_found";
    if (message && /internal|temporar|maintenance|try again|unavailable|overload/i.test(message)) return "server_error";
    return "bad_request";
}

function encodeBody(req: PostRequest): string {
    if (req.encoding === "json") return JSON.stringify(req.fields);
    // URLSearchParams encodes + & = % space and non-ASCII correctly; string concatenation would not.
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(req.fields)) form.append(k, String(v));
    return form.toString();
}

/**
 * Posts and returns the parsed JSON body of a successful (`status: "success"`) answer; throws otherwise.
 * A refusal's body rides on the error (not enumerable) for endpoints whose refusals carry data.
 */
export async function postJson(req: PostRequest): Promise<Record<string, unknown>> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), req.timeoutMs);
    let status: number;
    let text: string;
    let retryAfter: string | null;
    try {
        const res = await fetch(req.url, {
            method: "POST",
            body: encodeBody(req),
            headers: {
                "content-type":
                    req.encoding === "json" ? "application/json" : "application/x-www-form-urlencoded;charset=UTF-8",
                accept: "application/json",
                "user-agent": req.userAgent,
            },
            signal: controller.signal as any,
            redirect: "error",
            size: MAX_ANSWER_BYTES,
        });
        status = res.status;
        retryAfter = res.headers.get("retry-after");
        text = await res.text();
    } catch (e) {
        const aborted = controller.signal.aborted;
        const code = (e as { code?: string }).code;
        if ((e as { type?: string }).type === "max-size") {
            throw new EdisApiError({ endpoint: req.endpoint, kind: "unexpected_answer", detail: `the answer was larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB` });
        }
        throw new EdisApiError({
            endpoint: req.endpoint,
            kind: aborted ? "timeout" : "network",
            detail: aborted ? `no answer within ${Math.round(req.timeoutMs / 1000)} s` : code ? `${code}: ${(e as Error).message}` : (e as Error).message,
            redactor: req.redactor,
        });
    } finally {
        clearTimeout(timer);
    }

    let body: unknown;
    let parseFailed = false;
    try {
        body = text.trim() === "" ? undefined : JSON.parse(text);
    } catch {
        parseFailed = true;
    }
    const serverMessage = body !== undefined ? serverMessageOf(body) : undefined;
    const common = { endpoint: req.endpoint, status, serverMessage, redactor: req.redactor };

    if (status < 200 || status >= 300) {
        const retryAfterSeconds = parseRetryAfter(retryAfter);
        // "Not found" only from an answer in EDIS's own form (JSON with a `status` word): a 404 page from a wrong
        // host, a proxy or a maintenance page says nothing about the server, and must not drop it from state.
        const edisShaped = typeof (body as { status?: unknown } | undefined)?.status === "string";
        if (status === 404 && !edisShaped) {
            throw new EdisApiError({
                ...common,
                kind: "unexpected_answer",
                detail: `${body === undefined ? describeNonJson(text) : "the answer was not in EDIS's form"}; is the URL right (config \`edis:baseUrl\` / \`edis:authUrl\`)?`,
            });
        }
        throw new EdisApiError({
            ...common,
            kind: kindForStatus(status),
            retryAfterSeconds,
            detail: body === undefined ? describeNonJson(text) : undefined,
            body: edisShaped ? (body as Record<string, unknown>) : undefined,
        });
    }
    if (parseFailed || body === undefined || typeof body !== "object" || body === null || Array.isArray(body)) {
        throw new EdisApiError({ ...common, kind: "unexpected_answer", detail: describeNonJson(text) });
    }
    const answer = body as Record<string, unknown>;
    if (answer.status !== "success") {
        throw new EdisApiError({
            ...common,
            kind: kindForRefusal(serverMessage),
            detail: `status "${String(answer.status ?? "(none)")}"`,
            body: answer,
        });
    }
    return answer;
}

function describeNonJson(text: string): string {
    if (text.trim() === "") return "the answer was empty";
    if (/^\s*</.test(text)) return "the answer was an HTML page, not JSON";
    return "the answer was not JSON";
}
