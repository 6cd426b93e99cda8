/** One HTTP exchange with EDIS: POST with a time limit, every failure mapped to an `EdisApiError` of its kind. */
import fetch from "node-fetch";
import { keepRawAnswer } from "./rawAnswers";
import { EdisApiError, EdisErrorKind } from "./errors";
import { isSuccessWord, saferReadingsOf } from "./answers";
import { parseRetryAfter } from "./retry";
import { serverMessageOf } from "./schemas";
import { jsonOf } from "./namedIds";
import { withhold } from "./withhold";

/** An endless body must not fill memory. */
export const MAX_ANSWER_BYTES = 10 * 1024 * 1024;

export interface PostRequest {
    endpoint: string;
    url: string;
    encoding: "form" | "json";
    fields: Record<string, string | number | boolean>;
    timeoutMs: number;
    userAgent: string;
}

/** Set-up failures only (the body goes after TLS): never left. Not EHOSTUNREACH, ERR_SSL_*: live links give them. */
const NEVER_LEFT = /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EAI_NONAME|EADDRNOTAVAIL|ERR_INVALID_URL|ERR_TLS_CERT_ALTNAME_INVALID|CERT_\w+|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_\w+)$/;

function kindOf(status: number, edisShaped: boolean): EdisErrorKind {
    if (status === 401 || status === 403) return "credentials";
    if (status === 429) return "rate_limited";
    if (status >= 500 || status === 408) return "server_error";
    if (!edisShaped || status < 200 || status >= 500 || (status >= 300 && status < 400)) return "unexpected_answer";
    return "refused";
}

function encodeBody(req: PostRequest): string {
    if (req.encoding === "json") return JSON.stringify(req.fields);
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(req.fields)) form.append(k, String(v));
    return form.toString();
}

/** The body of an answer whose `status` is exactly "success"; else throws with the raw text for reading ids. */
export async function postJson(req: PostRequest): Promise<Record<string, unknown>> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), req.timeoutMs);
    let status: number;
    let text: string;
    let retryAfter: string | null;
    // After the status line, no error may read as "never left".
    let answered = false;
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
        answered = true;
        status = res.status;
        retryAfter = res.headers.get("retry-after");
        text = await res.text();
    } catch (e) {
        const fail = (kind: EdisErrorKind, detail: string) => new EdisApiError({ endpoint: req.endpoint, kind, detail });
        const code = (e as { code?: string }).code;
        if ((e as { type?: string }).type === "max-size") throw fail("unexpected_answer", `the answer was larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`);
        if (controller.signal.aborted) throw fail("timeout", `no answer within ${Math.round(req.timeoutMs / 1000)} s`);
        throw fail(!answered && code && NEVER_LEFT.test(code) ? "not_sent" : "network", code ? `${code}: ${(e as Error).message}` : (e as Error).message);
    } finally {
        clearTimeout(timer);
    }

    const body = jsonOf(text);
    const isObject = !!body && typeof body === "object" && !Array.isArray(body);
    const statusWord = isObject ? (body as Record<string, unknown>).status : undefined;
    const edisShaped = isObject && typeof statusWord === "string";
    const ok2xx = status >= 200 && status < 300;
    if (ok2xx && edisShaped && isSuccessWord(statusWord)) return body as Record<string, unknown>;

    // A failure's class comes from its form, never from its words.
    const serverMessage = isObject ? serverMessageOf(body as Record<string, unknown>) : undefined;
    const kind = kindOf(status, edisShaped);
    let detail: string | undefined;
    if (body === undefined) detail = describeNonJson(text);
    else if (!edisShaped) detail = ok2xx ? "the answer has no status word" : "the answer was not in EDIS's form";
    else if (ok2xx) detail = `status "${withhold(String(statusWord))}"`;
    if (status === 404 && !edisShaped) detail += "; is the URL right (config `edis:baseUrl` / `edis:authUrl`)?";
    keepRawAnswer(req.endpoint, status, text);
    throw new EdisApiError({
        endpoint: req.endpoint,
        kind,
        status,
        serverMessage,
        detail,
        saferReadings: kind === "refused" ? saferReadingsOf(text) : {},
        answerBytes: Buffer.byteLength(text),
        retryAfterSeconds: ok2xx ? undefined : parseRetryAfter(retryAfter),
        rawAnswer: text,
    });
}

function describeNonJson(text: string): string {
    if (text.trim() === "") return "the answer was empty";
    if (/^\s*</.test(text)) return "the answer was an HTML page, not JSON";
    if (/^\s*\{/.test(text)) return "the answer was not JSON as a whole (cut short, or text after it)";
    return "the answer was not JSON (text before or after the JSON, or none)";
}
