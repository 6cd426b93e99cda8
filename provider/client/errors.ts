/** The EDIS client's one error type: the engine prints it and may store it in state, so EDIS's text passes withhold. */
import { SaferReadings } from "./answers";
import { withhold } from "./withhold";

export interface EdisApiErrorInit {
    endpoint: string;
    kind: EdisErrorKind;
    status?: number;
    /** As received: the constructor withholds it if need be. */
    serverMessage?: string;
    /** May quote the answer, so it is withheld too. */
    detail?: string;
    /** Read by the transport before the text is withheld. */
    saferReadings?: SaferReadings;
    answerBytes?: number;
    retryAfterSeconds?: number;
    attempts?: number;
    /** Ids the answer names (any shape, any status): each may be something EDIS made and bills. */
    orderId?: number;
    serviceIds?: number[];
    /** How many of `serviceIds` are the ordered items' by place (IdsInAnswer.placed). */
    servicesPlaced?: number;
    invoiceId?: number;
    /** The answer as received, to read ids from; never printed. */
    rawAnswer?: string;
}

/** The answer's class, by form alone: "network" and "timeout" were sent (anything may have happened), "not_sent" never left. */
const KIND_TEXT = {
    not_sent: "not sent",
    network: "no answer (network error)",
    timeout: "no answer in time",
    credentials: "the e-mail or password was refused", // HTTP 401 or 403
    rate_limited: "rate limited",
    server_error: "server error", // HTTP 5xx or 408
    unexpected_answer: "unexpected answer", // not EDIS's form, or a success whose shape cannot be read
    refused: "refused", // EDIS's form with a status other than "success"
    session: "the management session was refused", // by a Management API host, for a fresh session
} as const;

export type EdisErrorKind = keyof typeof KIND_TEXT;

const CHECK_NETWORK = "check config `edis:baseUrl` and `edis:authUrl` (or EDIS_BASE_URL and EDIS_AUTH_URL) and the network";
/** What to do, right after what failed; a second part, when there is one, comes last. */
const KIND_HINT: Partial<Record<EdisErrorKind, [string, string?]>> = {
    credentials: [
        "check config `edis:email` and `edis:password` (or EDIS_EMAIL and EDIS_PASSWORD)",
        "after changing them, record them with one `pulumi up --refresh=false` (preview it first): refresh, destroy and the " +
            "refresh before up and preview use the credentials recorded at the last up",
    ],
    not_sent: [CHECK_NETWORK],
    network: [CHECK_NETWORK],
    session: [
        "enable API Access in the KVM portal of any of your servers (it applies to the whole account), then run the command again",
        "if it is enabled, check config `edis:managementUrl` (or EDIS_MANAGEMENT_URL)",
    ],
};

export interface EdisApiError extends Readonly<Omit<EdisApiErrorInit, "saferReadings" | "rawAnswer">> {}
export class EdisApiError extends Error {
    readonly saferReadings: SaferReadings;
    /** Not enumerable: an answer can echo request fields, so it must not reach JSON, logs or state. */
    declare readonly rawAnswer?: string;

    constructor(init: EdisApiErrorInit) {
        const origin = { status: init.status, bytes: init.answerBytes };
        const serverMessage = init.serverMessage === undefined ? undefined : withhold(init.serverMessage, origin);
        const detail = init.detail === undefined ? undefined : withhold(cut(init.detail), { ...origin, scope: "composed" });
        // What failed and what to do come first: the one line is also quoted inside other messages.
        const [todo, more] = KIND_HINT[init.kind] ?? [];
        let first = `EDIS ${init.endpoint}: ${KIND_TEXT[init.kind]}${init.status !== undefined ? ` (HTTP ${init.status})` : ""}`;
        if (init.attempts !== undefined && init.attempts > 1) first += ` after ${init.attempts} attempts`;
        const parts = [todo ? `${first}: ${todo}` : first];
        if (serverMessage) parts.push(`server said: ${serverMessage}`);
        if (detail) parts.push(detail);
        if (more) parts.push(more);
        super(parts.join("; "));
        const { rawAnswer, ...fields } = init;
        Object.assign(this, fields, { serverMessage, detail });
        this.saferReadings = init.saferReadings ?? {};
        this.name = "EdisApiError";
        Object.defineProperty(this, "rawAnswer", { value: rawAnswer, enumerable: false });
    }

    with(extra: Partial<EdisApiErrorInit>): EdisApiError {
        return new EdisApiError({ ...this, rawAnswer: this.rawAnswer, ...extra });
    }
}

export function isEdisApiError(e: unknown): e is EdisApiError {
    return e instanceof EdisApiError || (e instanceof Error && e.name === "EdisApiError");
}

export const FOREIGN_TEXT_MAX = 500;

function cut(text: string): string {
    // `with` builds the error again: a text cut once is not cut twice.
    return text.length > FOREIGN_TEXT_MAX + 3 ? `${text.slice(0, FOREIGN_TEXT_MAX)}...` : text;
}
