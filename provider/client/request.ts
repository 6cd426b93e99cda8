/**
 * One endpoint call as both clients make it: post (transport.ts), check the answer against the endpoint's wire schema
 * (schemas.ts), and repeat transient failures of repeatable endpoints as the retry policy says (retry.ts).
 */
import type { z } from "zod";
import { EdisApiError, quoted } from "./errors";
import { Clock, systemClock } from "../clock";
import { RetryPolicy, nextDelayMs } from "./retry";
import { describeIssues } from "./schemas";
import { postJson } from "./transport";
import { idsInAnswer } from "./namedIds";

/** What every call of one client shares. */
export interface RequestSettings {
    timeoutMs: number;
    retryPolicy: RetryPolicy;
    /** Receives one line per retry; lines never contain request fields. */
    log: (line: string) => void;
    userAgent: string;
    /** Whose time the back-off waits in (tests pass a ManualClock). */
    clock?: Clock;
}

/**
 * What a call needs of its wire schema (schemas.ts): zod's `safeParse`, without zod's types. The package's public
 * declarations reach this module (through the client's settings), and zod's own do not compile without `esModuleInterop`,
 * which Pulumi's standard tsconfig does not set: no exported declaration may name a zod type (test/declarations.test.ts).
 */
export interface WireSchema<T> {
    safeParse(answer: unknown): { success: true; data: T } | { success: false; error: unknown };
}

export interface EndpointCall<T> {
    /** The endpoint's name in errors and logs, e.g. "get/products". */
    endpoint: string;
    url: string;
    encoding: "form" | "json";
    /** "safe": repeating it cannot spend money or change anything twice. */
    retry: "safe" | "never";
    fields: Record<string, string | number | boolean>;
    schema: WireSchema<T>;
    /** This call's time limit, when shorter than the client's (a refresh's power reading near its window's end). */
    timeoutMs?: number;
    /** The service and KVM the call is about: a success that names another is no answer about them (aboutAnother). */
    about?: { serviceId?: number; kvmId?: string };
}

export async function request<T>(settings: RequestSettings, call: EndpointCall<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
        try {
            const body = await postJson({ ...call, timeoutMs: call.timeoutMs ?? settings.timeoutMs, userAgent: settings.userAgent });
            const parsed = call.schema.safeParse(body);
            if (!parsed.success) {
                throw new EdisApiError({
                    endpoint: call.endpoint,
                    kind: "unexpected_answer",
                    detail: `the answer did not have the expected shape: ${quoted(describeIssues(parsed.error as z.ZodError))}`,
                    // Kept (not enumerable) for the paid writes, which read any id in any answer.
                    rawAnswer: JSON.stringify(body),
                });
            }
            const another = call.about && aboutAnother(body, call.about);
            if (another) {
                throw new EdisApiError({ endpoint: call.endpoint, kind: "unexpected_answer", detail: another, rawAnswer: JSON.stringify(body) });
            }
            return parsed.data;
        } catch (e) {
            if (!(e instanceof EdisApiError)) throw e;
            const delay = call.retry === "safe" ? nextDelayMs(settings.retryPolicy, e, attempt) : undefined;
            if (delay === undefined) throw attempt > 1 ? e.with({ attempts: attempt }) : e;
            settings.log(
                `EDIS ${call.endpoint}: ${e.kind}${e.status ? ` (HTTP ${e.status})` : ""}, retry ${attempt} of ${settings.retryPolicy.maxAttempts - 1} in ${delay} ms`,
            );
            await (settings.clock ?? systemClock).sleep(delay);
        }
    }
}

/**
 * A success that names another service or KVM than the one asked about (`{"status":"success","serviceid":5001}` to a
 * cancel of 5002) says nothing true about ours (DESIGN.md section 4): what it names, for the error; else undefined.
 */
function aboutAnother(body: unknown, about: { serviceId?: number; kvmId?: string }): string | undefined {
    const { fields, kvms } = idsInAnswer(JSON.stringify(body));
    const services = about.serviceId === undefined ? [] : fields.serviceIds.filter((id) => id !== about.serviceId);
    const others = about.kvmId === undefined ? [] : kvms.filter((k) => k.toLowerCase() !== about.kvmId!.toLowerCase());
    if (!services.length && !others.length) return undefined;
    const asked = [about.serviceId !== undefined ? `service ${about.serviceId}` : undefined, about.kvmId].filter(Boolean).join(", ");
    const named = quoted([...services.map((id) => `service ${id}`), ...others].join(", "));
    return `the answer is about ${named}, not about ${asked} that was asked about: it is not taken as an answer about this server`;
}
