/**
 * pulumi-edis: EDIS Global KVM servers as Pulumi resources, and lookups to choose what to order.
 *
 * ```ts
 * import * as edis from "pulumi-edis";
 * const location = edis.getLocationOutput({ name: "Frankfurt" });
 * const plan = edis.getPlanOutput({ locationId: location.id, minRamMb: 2048 });
 * const os = edis.getOperatingSystemOutput({ locationId: location.id, planId: plan.id, nameRegex: "^Debian" });
 * const server = new edis.KvmServer("web", { planId: plan.id, osId: os.id, hostname: "web-1.example.com" });
 * ```
 */
import { checkOneSdk } from "./oneSdk";

checkOneSdk();

export { KvmServer } from "./kvmServer";
export type { KvmServerArgs, KvmServerReading, BillingCycle, CancellationType, PowerState } from "./kvmServer";
export { VncAccess } from "./vncAccess";
export type { VncAccessArgs } from "./vncAccess";
export { ReverseDns } from "./reverseDns";
export type { ReverseDnsArgs } from "./reverseDns";
export { TrafficAlert } from "./trafficAlert";
export type { TrafficAlertArgs } from "./trafficAlert";
export * from "./lookups/catalogue";
export * from "./lookups/account";
export type { OutputArgs } from "./lookups/context";
export { LookupError } from "./lookups/context";
export type { Prices, AddonGroupName, ListPrice } from "../provider/client/model";
