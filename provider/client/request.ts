/**
 * One endpoint call as both clients make it: post (transport.ts), check the answer against the endpoint's wire schema
 * (schemas.ts), and repeat transient failures of repeatable endpoints as the retry policy says (retry.ts).
 */
import type { z } from "zod";
import { EdisApiError } from "./errors";
import { Clock, systemClock } from "../clock";
import { RetryPolicy, nextDelayMs } from "./retry";
import { describeIssues } from "./schemas";
import { postJson } from "./transport";

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
                    detail: `the answer did not have the expected shape: ${describeIssues(parsed.error as z.ZodError)}`,
                    // Kept (not enumerable) for the paid writes, which read any id in any answer.
                    rawAnswer: JSON.stringify(body),
                });
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
