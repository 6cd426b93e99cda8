/** One endpoint call as both clients make it: post, check the answer's shape, repeat what the retry policy allows. */
import type { z } from "zod";
import { keepRawAnswer } from "./rawAnswers";
import { EdisApiError } from "./errors";
import { Clock, pause } from "../clock";
import { RetryPolicy, nextDelayMs } from "./retry";
import { describeIssues } from "./schemas";
import { PostRequest, postJson } from "./transport";
import { fieldIds, idsInAnswer } from "./namedIds";
import { secretInValue, withhold } from "./withhold";

export interface RequestSettings {
    timeoutMs: number;
    retryPolicy: RetryPolicy;
    /** Lines never contain request fields. */
    log: (line: string) => void;
    userAgent: string;
    clock: Clock;
    /** A cancelled deployment: no retry waits or is sent. */
    cancelled?: AbortSignal;
}

/** zod's `safeParse` without zod's types, which need `esModuleInterop` (Pulumi's standard tsconfig lacks it). */
export interface WireSchema<T> {
    safeParse(answer: unknown): { success: true; data: T } | { success: false; error: unknown };
}

export interface EndpointCall<T> extends Omit<PostRequest, "timeoutMs" | "userAgent"> {
    retry: "safe" | "never";
    schema: WireSchema<T>;
    timeoutMs?: number;
    /** What the answer must be about; `named`: a paid write's success names `serviceId` in its `serviceid` field (EDIS documents it). */
    about?: { serviceId?: number; kvmId?: string; named?: boolean };
}

export async function request<T>(settings: RequestSettings, call: EndpointCall<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
        try {
            const body = await postJson({ ...call, timeoutMs: call.timeoutMs ?? settings.timeoutMs, userAgent: settings.userAgent });
            const parsed = read(call.schema, body);
            const problem = parsed.success ? aboutAnother(body, call.about) ?? credentialIn(parsed.data) : `the answer did not have the expected shape: ${withhold(parsed.issues)}`;
            if (!parsed.success || problem) {
                // For the paid writes, which read any id in any answer.
                const rawAnswer = JSON.stringify(body);
                keepRawAnswer(call.endpoint, undefined, rawAnswer);
                throw new EdisApiError({ endpoint: call.endpoint, kind: "unexpected_answer", detail: problem, rawAnswer });
            }
            return parsed.data;
        } catch (e) {
            if (!(e instanceof EdisApiError)) throw e;
            const delay = call.retry === "safe" ? nextDelayMs(settings.retryPolicy, e, attempt) : undefined;
            if (delay === undefined || settings.cancelled?.aborted) throw attempt > 1 ? e.with({ attempts: attempt }) : e;
            settings.log(
                `EDIS ${call.endpoint}: ${e.kind}${e.status ? ` (HTTP ${e.status})` : ""}, retry ${attempt} of ${settings.retryPolicy.maxAttempts - 1} in ${delay} ms`,
            );
            await pause(settings.clock, delay, settings.cancelled);
            if (settings.cancelled?.aborted) throw attempt > 1 ? e.with({ attempts: attempt }) : e;
        }
    }
}

/** The answer through its schema; a schema that throws (a transform's bug) reads it as an answer of an unexpected shape, whose ids are still read. */
function read<T>(schema: WireSchema<T>, body: unknown): { success: true; data: T } | { success: false; issues: string } {
    try {
        const parsed = schema.safeParse(body);
        return parsed.success ? parsed : { success: false, issues: describeIssues(parsed.error as z.ZodError) };
    } catch (e) {
        return { success: false, issues: (e as Error).message };
    }
}

/** A value to keep that holds a credential: the answer is not kept, in state or anywhere. */
function credentialIn(data: unknown): string | undefined {
    const at = secretInValue(data);
    return at && `its value at ${at} holds the account's e-mail or password, so nothing of it is kept`;
}

/** A success that names another service or KVM than the one asked about says nothing true about ours. */
function aboutAnother(body: unknown, about: EndpointCall<unknown>["about"]): string | undefined {
    if (!about) return undefined;
    const { fields, kvms } = idsInAnswer(JSON.stringify(body));
    const asked = [about.serviceId !== undefined ? `service ${about.serviceId}` : undefined, about.kvmId].filter(Boolean).join(", ");
    // A paid write's success rests on the field EDIS documents for it, which cannot be misread; words decide nothing.
    if (about.named && about.serviceId !== undefined && !(fieldIds(body, "serviceid") ?? []).includes(about.serviceId)) {
        return `the answer does not name service ${about.serviceId} in its serviceid field, as EDIS's answer to it does: it is not taken as an answer about this server`;
    }
    const services = about.serviceId === undefined ? [] : fields.serviceIds.filter((id) => id !== about.serviceId);
    const others = about.kvmId === undefined ? [] : kvms.filter((k) => k.toLowerCase() !== about.kvmId!.toLowerCase());
    if (!services.length && !others.length) return undefined;
    const what = withhold([...services.map((id) => `service ${id}`), ...new Set(others)].join(", "));
    return `the answer is about ${what}, not about ${asked} that was asked about: it is not taken as an answer about this server`;
}
