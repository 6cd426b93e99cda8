/**
 * What the Management API resources (VncAccess, ReverseDns, TrafficAlert) share: the engine-facing rules that
 * differ from KvmServer's. None of them is billed, so a server that EDIS no longer knows takes them with it.
 */
import { refusedInEdisForm } from "../client/answers";
import { isEdisApiError } from "../client/errors";
import { CheckFailure, FieldRule, checkFields } from "../fields";
import { kvmId } from "../kvm/inputs";
import { ConfigureRequest, configure } from "../runtime";

/** The `kvmId` input of every Management API resource: `server.kvmId`. */
export const KVM_ID_RULE: FieldRule = { required: true, validate: kvmId };

/**
 * True when EDIS has no session for the KVM: its listing, asked for that KVM, does not hold it, or refuses it in
 * EDIS's own form (cancelled or unknown). What delete and read of a resource on that server (nothing billed) treat
 * as "gone with the server".
 */
export function serverGone(e: unknown): boolean {
    return isEdisApiError(e) && e.endpoint === "get/auth" && (e.unlisted === true || refusedInEdisForm(e));
}

/**
 * True when the host gave no definite answer now (down, slow, overloaded, unreadable, a "try again", or a refused
 * session), nothing about the resource: what a read keeps state on instead of failing the refresh.
 */
export function noAnswerNow(e: unknown): boolean {
    return isEdisApiError(e) && e.kind !== "credentials" && !serverGone(e);
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
