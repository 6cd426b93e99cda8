/** `pulumi-edis/provider`: what Pulumi's dynamic-provider host loads, and the client and catalogue lookups share. */
import { guarded } from "./client/withhold";
import { kvmServerOn } from "./kvm/provider";
import { vncAccessOn } from "./management/vncAccess";
import { reverseDnsOn } from "./management/reverseDns";
import { trafficAlertOn } from "./management/trafficAlert";
import { processCore } from "./runtime";

// The dynamic door: the host caches one provider per resource type; all four share the process's core.
export const kvmServer = guarded(kvmServerOn(processCore));
export const vncAccess = guarded(vncAccessOn(processCore));
export const reverseDns = guarded(reverseDnsOn(processCore));
export const trafficAlert = guarded(trafficAlertOn(processCore));
export { ManagementClient, MANAGEMENT_ENDPOINTS, DEFAULT_MANAGEMENT_URL } from "./client/management";
export { EdisClient, ENDPOINTS, DEFAULT_AUTH_URL, DEFAULT_BASE_URL } from "./client/client";
export type { EdisClientOptions } from "./client/client";
export { EdisApiError, isEdisApiError } from "./client/errors";
export type { EdisErrorKind } from "./client/errors";
export { DEFAULT_RETRY_POLICY } from "./client/retry";
export type { RetryPolicy } from "./client/retry";
export * from "./client/model";
export { Catalogue } from "./catalogue";
export { SETTINGS, resolveConfig, requireCredentials, describeSetting } from "./config";
export type { ProviderConfig } from "./config";
