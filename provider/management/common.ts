/** What the Management API resources share. None is billed, so a server EDIS no longer knows takes them with it. */
import { refusedInEdisForm } from "../client/answers";
import { isEdisApiError } from "../client/errors";
import { ENDPOINTS } from "../client/client";
import { KvmNotListedError } from "../client/management";
import { FieldRule, checkFields } from "../fields";
import { kvmId } from "../kvm/inputs";
import { ConfigureRequest, Core } from "../runtime";

export const KVM_ID_RULE: FieldRule = { required: true, validate: kvmId };

export function serverGone(e: unknown): boolean {
    return e instanceof KvmNotListedError || (isEdisApiError(e) && e.endpoint === ENDPOINTS.auth.path && refusedInEdisForm(e));
}

/** No definite answer now: a read keeps state rather than fail the refresh. */
export function noAnswerNow(e: unknown): boolean {
    return isEdisApiError(e) && e.kind !== "credentials" && !serverGone(e);
}

/** Its errors never show the value. */
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

export function withoutSecrets(inputs: Record<string, unknown>, secrets: readonly string[]): Record<string, unknown> {
    return Object.fromEntries(Object.entries(inputs).filter(([k]) => !secrets.includes(k) && k !== "__provider"));
}

export function configuredResource(core: Core, resource: string, rules: Record<string, FieldRule>) {
    return {
        async configure(req: ConfigureRequest): Promise<void> {
            core.configure(req);
        },
        async check(_olds: Record<string, unknown>, news: Record<string, unknown>) {
            return checkFields(resource, rules, news);
        },
    };
}
