/** `pulumi-edis/provider`: what Pulumi's dynamic-provider host loads, and the client and catalogue lookups share. */
import { guarded } from "./client/withhold";
import { kvmServer as kvmServerImpl } from "./kvm/provider";
import { vncAccess as vncAccessImpl } from "./management/vncAccess";
import { reverseDns as reverseDnsImpl } from "./management/reverseDns";
import { trafficAlert as trafficAlertImpl } from "./management/trafficAlert";

export const kvmServer = guarded(kvmServerImpl);
export const vncAccess = guarded(vncAccessImpl);
export const reverseDns = guarded(reverseDnsImpl);
export const trafficAlert = guarded(trafficAlertImpl);
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
