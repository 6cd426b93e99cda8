/**
 * One HTTP exchange with EDIS: POST, a per-request time limit, and the mapping of every failure to an
 * `EdisApiError` of the right kind. No retries here (see retry.ts) and no knowledge of endpoints' shapes.
 */
import fetch from "node-fetch";
import { EdisApiError, EdisErrorKind, Redactor } from "./errors";
import { Meaning, isSuccessWord, meaningOf } from "./answers";
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

/** The error kind (the wording of the error) for a meaning the classifier gave (answers.ts). */
function kindFor(meaning: Meaning, status: number, edisShaped: boolean): EdisErrorKind {
    switch (meaning) {
        case "gone":
            return "not_found";
        case "credentials":
            return "credentials";
        case "retry":
            return status === 429 ? "rate_limited" : "server_error";
        case "unknown":
            return status >= 500 || edisShaped ? "server_error" : "unexpected_answer";
        default:
            return "bad_request";
    }
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

    const edisShaped = typeof (body as { status?: unknown } | undefined)?.status === "string";
    const isObject = !parseFailed && !!body && typeof body === "object" && !Array.isArray(body);
    const ok2xx = status >= 200 && status < 300;
    if (ok2xx && isObject && isSuccessWord((body as Record<string, unknown>).status)) return body as Record<string, unknown>;
    if (ok2xx && !isObject) {
        throw new EdisApiError({ ...common, kind: "unexpected_answer", meaning: "unknown", detail: describeNonJson(text) });
    }
    // Every other answer is a failure of some meaning; what it means is decided in one place (answers.ts).
    const statusWord = edisShaped ? String((body as Record<string, unknown>).status) : undefined;
    const meaning = meaningOf({ httpStatus: status, edisShaped, message: serverMessage, statusWord });
    const kind = ok2xx && !edisShaped ? "unexpected_answer" : kindFor(meaning, status, edisShaped);
    let detail: string | undefined;
    if (body === undefined) detail = describeNonJson(text);
    else if (!edisShaped && !ok2xx) detail = "the answer was not in EDIS's form";
    else if (!edisShaped) detail = "the answer has no status word";
    else if (ok2xx) detail = `status "${String((body as Record<string, unknown>).status)}"`;
    if (status === 404 && !edisShaped) detail += "; is the URL right (config `edis:baseUrl` / `edis:authUrl`)?";
    throw new EdisApiError({
        ...common,
        kind,
        meaning,
        retryAfterSeconds: ok2xx ? undefined : parseRetryAfter(retryAfter),
        detail,
        // A failed answer's body rides along (not enumerable) for the endpoints whose failures carry data:
        // add/order and add/upgrade read any order, service or invoice id in it.
        body: isObject ? (body as Record<string, unknown>) : undefined,
    });
}

function describeNonJson(text: string): string {
    if (text.trim() === "") return "the answer was empty";
    if (/^\s*</.test(text)) return "the answer was an HTML page, not JSON";
    return "the answer was not JSON";
}
