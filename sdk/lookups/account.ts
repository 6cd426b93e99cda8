/** The SDK's account lookups (provider/lookups/account.ts); no result carries a session credential, in any language. */
import * as core from "../../provider/lookups/account";
import { outputOf, promiseOf } from "./context";

export type { GetKvmIdArgs, GetKvmIdResult, GetKvmSessionArgs, GetKvmSessionsResult, GetServiceIdArgs, GetServiceIdResult, KvmSessionInfo } from "../../provider/lookups/account";

/** Every KVM of the account (get/auth), without the session credentials. @function */
export const getKvmSessions = promiseOf(core.getKvmSessions);
/** `getKvmSessions` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getKvmSessionsOutput = outputOf(getKvmSessions);

/** One KVM of the account, without its session credential; an error when the account has no such KVM. @function */
export const getKvmSession = promiseOf(core.getKvmSession);
/** `getKvmSession` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getKvmSessionOutput = outputOf(getKvmSession);

/** The KVM id of a service. @function */
export const getKvmId = promiseOf(core.getKvmId);
/** `getKvmId` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getKvmIdOutput = outputOf(getKvmId);

/** The service id of a KVM. @function */
export const getServiceId = promiseOf(core.getServiceId);
/** `getServiceId` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getServiceIdOutput = outputOf(getServiceId);
