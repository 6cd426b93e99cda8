/**
 * What the Management API resources (VncAccess, ReverseDns, TrafficAlert) share: the engine-facing rules that
 * differ from KvmServer's. None of them is billed, so a server that EDIS no longer knows takes them with it.
 */
import { isEdisApiError } from "../client/errors";
import { CheckFailure, FieldRule, checkFields } from "../fields";
import { kvmId } from "../kvm/inputs";
import { ConfigureRequest, configure } from "../runtime";

/** The `kvmId` input of every Management API resource: `server.kvmId`. */
export const KVM_ID_RULE: FieldRule = { required: true, validate: kvmId };

/**
 * True when the error says EDIS has no session for the KVM, i.e. the server is cancelled or unknown: what
 * delete and read of a resource on that server treat as "gone with the server".
 */
export function serverGone(e: unknown): boolean {
    return isEdisApiError(e) && e.endpoint === "get/auth" && e.meaning === "gone";
}

/**
 * True when the error says the host gave no usable answer now (down, slow, overloaded, an unreadable answer, or a
 * refused session), not anything about the resource: what a read keeps state on instead of failing the refresh.
 */
export function noAnswerNow(e: unknown): boolean {
    return isEdisApiError(e) && (e.meaning === "retry" || e.meaning === "unknown" || e.kind === "session");
}

/** A secret input's rule: its errors never show the value. */
export function secretRule(required: boolean, test: (v: string) => string | undefined): FieldRule {
    return {
        required,
        validate: (v) => {
            if (typeof v !== "string") return { error: `must be a string` };
            const problem = test(v);
            return problem ? { error: problem } : { value: v };
        },
    };
}

/** The outputs of a resource on a server: the inputs except the secret ones, plus what EDIS reported. */
export function withoutSecrets(inputs: Record<string, unknown>, secrets: readonly string[]): Record<string, unknown> {
    return Object.fromEntries(Object.entries(inputs).filter(([k]) => !secrets.includes(k) && k !== "__provider"));
}

/** The `configure` and `check` of a Management API resource: the shared configuration, and its input rules. */
export function configuredResource(resource: string, rules: Record<string, FieldRule>) {
    return {
        async configure(req: ConfigureRequest): Promise<void> {
            configure(req);
        },
        async check(_olds: Record<string, unknown>, news: Record<string, unknown>): Promise<{ inputs: Record<string, unknown>; failures: CheckFailure[] }> {
            return checkFields(resource, rules, news);
        },
    };
}
