/**
 * The one error type of the EDIS client. Everything that goes wrong talking to EDIS becomes an
 * `EdisApiError` whose text, properties and JSON form have had every known secret removed, so it can be
 * thrown through the Pulumi engine (which prints it and, for create/update, stores it) without leaking.
 */

export type EdisErrorKind =
    | "credentials" // 401/403 or the API said the e-mail/password is wrong
    | "not_found" // EDIS said (JSON, 404 or a refusal naming it) that it does not know the service, KVM or product
    | "bad_request" // 400 or another 4xx: the request itself was refused
    | "rate_limited" // 429
    | "server_error" // 5xx
    | "network" // no answer: refused, reset, dropped connection
    | "timeout" // no answer within the per-request time limit
    | "unexpected_answer"; // 2xx but not JSON, not `status: success`, or not the documented shape

export interface EdisApiErrorInit {
    endpoint: string;
    kind: EdisErrorKind;
    /** HTTP status, when the server answered at all. */
    status?: number;
    /** The server's own message (`message`/`msg`/`error`), already redacted. */
    serverMessage?: string;
    /** Extra explanation, e.g. the schema path that did not match. */
    detail?: string;
    /** Seconds the server asked us to wait (Retry-After), for rate-limit and 503 answers. */
    retryAfterSeconds?: number;
    /** How many attempts were made before giving up. */
    attempts?: number;
    /** The order this error concerns, when an order was created (add/order answered `failed` with an id). */
    orderId?: number;
    /** A refused answer's body, for the endpoint function to read data from; never printed. */
    body?: Record<string, unknown>;
}

const KIND_TEXT: Record<EdisErrorKind, string> = {
    credentials: "the e-mail or password was refused",
    not_found: "not found",
    bad_request: "the request was refused",
    rate_limited: "rate limited",
    server_error: "server error",
    network: "no answer (network error)",
    timeout: "no answer in time",
    unexpected_answer: "unexpected answer",
};

export class EdisApiError extends Error {
    readonly endpoint: string;
    readonly kind: EdisErrorKind;
    readonly status?: number;
    readonly serverMessage?: string;
    readonly detail?: string;
    readonly retryAfterSeconds?: number;
    readonly attempts?: number;
    readonly orderId?: number;
    /** Not enumerable: a body can echo request fields, so it must not reach JSON, logs or state. */
    declare readonly body?: Record<string, unknown>;

    constructor(init: EdisApiErrorInit) {
        const parts = [`EDIS ${init.endpoint}: ${KIND_TEXT[init.kind]}`];
        if (init.status !== undefined) parts[0] += ` (HTTP ${init.status})`;
        if (init.serverMessage) parts.push(`server said: ${init.serverMessage}`);
        if (init.detail) parts.push(init.detail);
        if (init.attempts !== undefined && init.attempts > 1) parts.push(`after ${init.attempts} attempts`);
        super(parts.join("; "));
        this.name = "EdisApiError";
        this.endpoint = init.endpoint;
        this.kind = init.kind;
        this.status = init.status;
        this.serverMessage = init.serverMessage;
        this.detail = init.detail;
        this.retryAfterSeconds = init.retryAfterSeconds;
        this.attempts = init.attempts;
        this.orderId = init.orderId;
        Object.defineProperty(this, "body", { value: init.body, enumerable: false });
    }

    /** The same error with more context, e.g. the attempt count the retry loop adds. */
    with(extra: Partial<EdisApiErrorInit>): EdisApiError {
        return new EdisApiError({
            endpoint: this.endpoint,
            kind: this.kind,
            status: this.status,
            serverMessage: this.serverMessage,
            detail: this.detail,
            retryAfterSeconds: this.retryAfterSeconds,
            attempts: this.attempts,
            orderId: this.orderId,
            body: this.body,
            ...extra,
        });
    }

    /**
     * True when a request that changes something may or may not have taken effect: no answer, a server
     * error, or an answer that could not be read. Such a request must be reported, never repeated blindly.
     */
    get outcomeUnknown(): boolean {
        return this.kind === "network" || this.kind === "timeout" || this.kind === "server_error" || this.kind === "unexpected_answer";
    }

    /** True when repeating the same request later may succeed (used by the retry policy). */
    get transient(): boolean {
        return (
            this.kind === "rate_limited" ||
            this.kind === "server_error" ||
            this.kind === "network" ||
            this.kind === "timeout"
        );
    }
}

export function isEdisApiError(e: unknown): e is EdisApiError {
    return e instanceof EdisApiError || (e instanceof Error && e.name === "EdisApiError");
}

/**
 * Removes secrets from any text that may reach a log, an error or state. Secrets are matched as given and in
 * their form- and URI-encoded spellings, because a server may echo the request body back.
 */
export class Redactor {
    private readonly secrets = new Set<string>();

    constructor(secrets: Iterable<string | undefined> = []) {
        for (const s of secrets) this.add(s);
    }

    add(secret: string | undefined): void {
        // Very short values would blank out ordinary words; the API's secrets are never that short.
        if (!secret || secret.length < 3) return;
        this.secrets.add(secret);
        this.secrets.add(encodeURIComponent(secret));
        this.secrets.add(new URLSearchParams({ x: secret }).toString().slice(2));
        this.secrets.add(JSON.stringify(secret).slice(1, -1));
    }

    redact(text: string): string {
        let out = text;
        // Longest first, so that a secret containing another is removed whole.
        for (const s of [...this.secrets].sort((a, b) => b.length - a.length)) {
            if (s.length >= 3) out = out.split(s).join("[redacted]");
        }
        return out;
    }
}
