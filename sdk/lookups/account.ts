/**
 * Account lookups: the KVMs of the account and the service-id/KVM-id mapping. These are live answers: the
 * session listing is shared by concurrent lookups and kept for a few seconds only, the mapping is not kept.
 */
import * as pulumi from "@pulumi/pulumi";
import { isEdisApiError } from "../../provider/client/errors";
import { KvmSession } from "../../provider/client/model";
import { LookupError, OutputArgs, lookup, lookupAccount, outputOf } from "./context";

/** A KVM's session entry (get/auth); `signature` is a credential, which is why the Output forms are secret. */
export type { KvmSession };

/** The result of getKvmSessions. */
export interface GetKvmSessionsResult {
    /** Every KVM of the account with its management-API session. `signature` is a credential. */
    sessions: KvmSession[];
}

/** Every KVM of the account (get/auth). The Promise form returns signatures in the clear: handle with care. */
export function getKvmSessions(_args: Record<string, never> = {}, _opts?: pulumi.InvokeOptions): Promise<GetKvmSessionsResult> {
    return lookup(async () => {
        return { sessions: [...(await lookupAccount().sessions.all()).values()] };
    });
}

/**
 * Output form of getKvmSessions. The result is a secret, because it carries the session signatures:
 * Pulumi masks it in logs and encrypts it in state.
 */
export function getKvmSessionsOutput(_args?: Record<string, never>, opts?: pulumi.InvokeOptions): pulumi.Output<GetKvmSessionsResult> {
    return pulumi.secret(pulumi.output(getKvmSessions({}, opts)));
}

/** The arguments of getKvmSession. */
export interface GetKvmSessionArgs {
    /** The KVM id, e.g. "kvm_123456_789012". */
    kvmId: string;
}

/** One KVM's session entry; an error when the account has no such KVM. */
export function getKvmSession(args: GetKvmSessionArgs, _opts?: pulumi.InvokeOptions): Promise<KvmSession> {
    return lookup(async () => {
        const session = await lookupAccount().sessions.one(args.kvmId);
        if (!session) throw new LookupError("getKvmSession", `the account has no KVM "${args.kvmId}"; getKvmSessions() lists them`);
        return session;
    });
}

/** Output form of getKvmSession; the result is a secret because it carries the signature. */
export function getKvmSessionOutput(args: OutputArgs<GetKvmSessionArgs>, opts?: pulumi.InvokeOptions): pulumi.Output<KvmSession> {
    return pulumi.secret(outputOf(getKvmSession)(args, opts));
}

/** The arguments of getKvmId. */
export interface GetKvmIdArgs {
    /** The service id (a KvmServer's id). */
    serviceId: number;
}

/** The result of getKvmId. */
export interface GetKvmIdResult {
    /** The service id asked about. */
    serviceId: number;
    /** The KVM id; undefined while the service is not provisioned yet. */
    kvmId?: string;
}

/** The KVM id of a service. */
export function getKvmId(args: GetKvmIdArgs, _opts?: pulumi.InvokeOptions): Promise<GetKvmIdResult> {
    return lookup(async () => {
        try {
            return { serviceId: args.serviceId, kvmId: await lookupAccount().catalogue.client.getKvmId(args.serviceId) };
        } catch (e) {
            if (isEdisApiError(e) && e.kind === "not_found") throw new LookupError("getKvmId", `the account has no service ${args.serviceId}`);
            throw e;
        }
    });
}
/** `getKvmId` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getKvmIdOutput = outputOf<GetKvmIdArgs, GetKvmIdResult>(getKvmId);

/** The arguments of getServiceId. */
export interface GetServiceIdArgs {
    /** The KVM id, e.g. "kvm_123456_789012". */
    kvmId: string;
}

/** The result of getServiceId. */
export interface GetServiceIdResult {
    /** The KVM id asked about. */
    kvmId: string;
    /** The service id: what adoptKvmId's resource will have as its id. */
    serviceId: number;
}

/** The service id of a KVM. */
export function getServiceId(args: GetServiceIdArgs, _opts?: pulumi.InvokeOptions): Promise<GetServiceIdResult> {
    return lookup(async () => {
        let serviceId: number | undefined;
        try {
            serviceId = await lookupAccount().catalogue.client.getServiceId(args.kvmId);
        } catch (e) {
            if (isEdisApiError(e) && e.kind === "not_found") throw new LookupError("getServiceId", `the account has no KVM "${args.kvmId}"`);
            throw e;
        }
        if (serviceId === undefined) throw new LookupError("getServiceId", `EDIS named no service id for "${args.kvmId}"`);
        return { kvmId: args.kvmId, serviceId };
    });
}
/** `getServiceId` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getServiceIdOutput = outputOf<GetServiceIdArgs, GetServiceIdResult>(getServiceId);
