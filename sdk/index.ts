/**
 * pulumi-edis: EDIS Global KVM servers as Pulumi resources.
 *
 * ```ts
 * import * as edis from "pulumi-edis";
 * ```
 */
export { KvmServer } from "./kvmServer";
export type { KvmServerArgs, BillingCycle, CancellationType } from "./kvmServer";
