/**
 * The account lookups of the TypeScript SDK: the KVMs of the account and the service-id/KVM-id mapping, the core's
 * (provider/lookups/account.ts) on the account the program's config names. The Output forms of the session lookups
 * are secret: they carry the session signatures.
 */
import * as pulumi from "@pulumi/pulumi";
import * as core from "../../provider/lookups/account";
import type { GetKvmIdArgs, GetKvmIdResult, GetKvmSessionArgs, GetKvmSessionsResult, GetServiceIdArgs, GetServiceIdResult, KvmSession } from "../../provider/lookups/account";
import { OutputArgs, lookup, outputOf } from "./context";

export type { GetKvmIdArgs, GetKvmIdResult, GetKvmSessionArgs, GetKvmSessionsResult, GetServiceIdArgs, GetServiceIdResult, KvmSession } from "../../provider/lookups/account";

/** Every KVM of the account (get/auth). The Promise form returns signatures in the clear: handle with care. */
export function getKvmSessions(_args: Record<string, never> = {}, _opts?: pulumi.InvokeOptions): Promise<GetKvmSessionsResult> {
    return lookup((account) => core.getKvmSessions(account));
}

/**
 * Output form of getKvmSessions. The result is a secret, because it carries the session signatures:
 * Pulumi masks it in logs and encrypts it in state.
 */
export function getKvmSessionsOutput(_args?: Record<string, never>, opts?: pulumi.InvokeOptions): pulumi.Output<GetKvmSessionsResult> {
    return pulumi.secret(pulumi.output(getKvmSessions({}, opts)));
}

/** One KVM's session entry; an error when the account has no such KVM. */
export function getKvmSession(args: GetKvmSessionArgs, _opts?: pulumi.InvokeOptions): Promise<KvmSession> {
    return lookup((account) => core.getKvmSession(account, args));
}

/** Output form of getKvmSession; the result is a secret because it carries the signature. */
export function getKvmSessionOutput(args: OutputArgs<GetKvmSessionArgs>, opts?: pulumi.InvokeOptions): pulumi.Output<KvmSession> {
    return pulumi.secret(outputOf(getKvmSession)(args, opts));
}

/** The KVM id of a service. */
export function getKvmId(args: GetKvmIdArgs, _opts?: pulumi.InvokeOptions): Promise<GetKvmIdResult> {
    return lookup((account) => core.getKvmId(account, args));
}
/** `getKvmId` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getKvmIdOutput = outputOf<GetKvmIdArgs, GetKvmIdResult>(getKvmId);

/** The service id of a KVM. */
export function getServiceId(args: GetServiceIdArgs, _opts?: pulumi.InvokeOptions): Promise<GetServiceIdResult> {
    return lookup((account) => core.getServiceId(account, args));
}
/** `getServiceId` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getServiceIdOutput = outputOf<GetServiceIdArgs, GetServiceIdResult>(getServiceId);
