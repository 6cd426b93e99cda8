/**
 * The account lookups of the TypeScript SDK: the KVMs of the account and the service-id/KVM-id mapping, the core's
 * (provider/lookups/account.ts) on the account the program's config names. The Output forms of the session lookups
 * are secret: they carry the session signatures.
 */
import * as pulumi from "@pulumi/pulumi";
import * as core from "../../provider/lookups/account";
import type { GetKvmSessionArgs, GetKvmSessionsResult, KvmSession } from "../../provider/lookups/account";
import { OutputArgs, outputOf, promiseOf } from "./context";

export type { GetKvmIdArgs, GetKvmIdResult, GetKvmSessionArgs, GetKvmSessionsResult, GetServiceIdArgs, GetServiceIdResult, KvmSession } from "../../provider/lookups/account";

/** Every KVM of the account (get/auth). The Promise form returns signatures in the clear: handle with care. @function */
export const getKvmSessions = promiseOf(core.getKvmSessions);

/**
 * Output form of getKvmSessions. The result is a secret, because it carries the session signatures:
 * Pulumi masks it in logs and encrypts it in state.
 */
export function getKvmSessionsOutput(_args?: Record<string, never>, opts?: pulumi.InvokeOptions): pulumi.Output<GetKvmSessionsResult> {
    return pulumi.secret(pulumi.output(getKvmSessions({}, opts)));
}

/** One KVM's session entry; an error when the account has no such KVM. @function */
export const getKvmSession = promiseOf(core.getKvmSession);

/** Output form of getKvmSession; the result is a secret because it carries the signature. */
export function getKvmSessionOutput(args: OutputArgs<GetKvmSessionArgs>, opts?: pulumi.InvokeOptions): pulumi.Output<KvmSession> {
    return pulumi.secret(outputOf(getKvmSession)(args, opts));
}

/** The KVM id of a service. @function */
export const getKvmId = promiseOf(core.getKvmId);
/** `getKvmId` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getKvmIdOutput = outputOf(getKvmId);

/** The service id of a KVM. @function */
export const getServiceId = promiseOf(core.getServiceId);
/** `getServiceId` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getServiceIdOutput = outputOf(getServiceId);
