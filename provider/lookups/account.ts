/** The account lookups, as both doors serve them: live answers (the listing is kept seconds, the mapping not kept). */
import { refusedInEdisForm } from "../client/answers";
import { isEdisApiError } from "../client/errors";
import { KvmSession, KvmSessionInfo } from "../client/model";
import { Catalogue } from "../catalogue";
import { ProviderConfig, clientFromConfig } from "../config";
import { SessionDirectory } from "../sessions";

/** What a lookup asks: the account's catalogue and session listing, each answer fetched once per run. */
export interface LookupAccount {
    catalogue: Catalogue;
    sessions: SessionDirectory;
}

/** The error every lookup throws: says which lookup, what was asked, and what exists. */
export class LookupError extends Error {
    constructor(lookup: string, message: string) {
        super(`edis.${lookup}: ${message}`);
        this.name = "LookupError";
    }
}

const accounts = new Map<string, LookupAccount>();

/** One account per credentials and endpoint per process: each catalogue answer is fetched once for all lookups. */
export function lookupAccountFor(config: ProviderConfig): LookupAccount {
    const key = `${config.baseUrl}|${config.authUrl}|${config.email}`;
    let account = accounts.get(key);
    if (!account) {
        const client = clientFromConfig(config, { userAgent: "pulumi-edis (lookup)" });
        account = { catalogue: new Catalogue(client), sessions: new SessionDirectory(client) };
        accounts.set(key, account);
    }
    return account;
}

export type { KvmSessionInfo };

/** The result of getKvmSessions. */
export interface GetKvmSessionsResult {
    /** Every KVM of the account, as get/auth lists it. */
    sessions: KvmSessionInfo[];
}

/** A session entry without its credentials (the signature, and the expiry text it may be bound to): no lookup returns them. */
function withoutCredential({ signature: _signature, validUntilText: _text, ...info }: KvmSession): KvmSessionInfo {
    return info;
}

/** Every KVM of the account (get/auth). */
export async function getKvmSessions(account: LookupAccount): Promise<GetKvmSessionsResult> {
    return { sessions: [...(await account.sessions.all()).values()].map(withoutCredential) };
}

/** The arguments of getKvmSession. */
export interface GetKvmSessionArgs {
    /** The KVM id, e.g. "kvm_123456_789012". */
    kvmId: string;
}

/** One KVM's session entry; an error when the account has no such KVM. */
export async function getKvmSession(account: LookupAccount, args: GetKvmSessionArgs): Promise<KvmSessionInfo> {
    const session = await account.sessions.one(args.kvmId);
    if (!session) throw new LookupError("getKvmSession", `the account has no KVM "${args.kvmId}"; getKvmSessions() lists them`);
    return withoutCredential(session);
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
    /** The KVM id; absent while the service is not provisioned yet. */
    kvmId?: string;
}

/** The KVM id of a service. */
export async function getKvmId(account: LookupAccount, args: GetKvmIdArgs): Promise<GetKvmIdResult> {
    try {
        return { serviceId: args.serviceId, kvmId: await account.catalogue.client.getKvmId(args.serviceId) };
    } catch (e) {
        if (isEdisApiError(e) && refusedInEdisForm(e)) throw new LookupError("getKvmId", `the account has no service ${args.serviceId} (${e.message})`);
        throw e;
    }
}

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
export async function getServiceId(account: LookupAccount, args: GetServiceIdArgs): Promise<GetServiceIdResult> {
    let serviceId: number | undefined;
    try {
        serviceId = await account.catalogue.client.getServiceId(args.kvmId);
    } catch (e) {
        if (isEdisApiError(e) && refusedInEdisForm(e)) throw new LookupError("getServiceId", `the account has no KVM "${args.kvmId}" (${e.message})`);
        throw e;
    }
    if (serviceId === undefined) throw new LookupError("getServiceId", `EDIS named no service id for "${args.kvmId}"`);
    return { kvmId: args.kvmId, serviceId };
}
