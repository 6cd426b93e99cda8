/**
 * What the Management API resources (VncAccess, ReverseDns, TrafficAlert) share: the engine-facing rules that
 * differ from KvmServer's. None of them is billed, so a server that EDIS no longer knows takes them with it.
 */
import { refusedInEdisForm } from "../client/answers";
import { isEdisApiError } from "../client/errors";
import { ENDPOINTS } from "../client/client";
import { KvmNotListedError } from "../client/management";
import { CheckFailure, FieldRule, checkFields } from "../fields";
import { kvmId } from "../kvm/inputs";
import { ConfigureRequest, configure } from "../runtime";

/** The `kvmId` input of every Management API resource: `server.kvmId`. */
export const KVM_ID_RULE: FieldRule = { required: true, validate: kvmId };

/** EDIS has no session for the KVM (not listed, or refused in EDIS's own form): a resource on it (nothing billed) is gone too. */
export function serverGone(e: unknown): boolean {
    return e instanceof KvmNotListedError || (isEdisApiError(e) && e.endpoint === ENDPOINTS.auth.path && refusedInEdisForm(e));
}

/** The host gave no definite answer now (down, slow, unreadable, "try again", a refused session): a read keeps state rather than fail the refresh. */
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
