/** `pulumi-edis/provider`: what Pulumi's dynamic-provider host loads, and the client and catalogue lookups share. */
import { guarded } from "./client/withhold";
import { kvmServerOn } from "./kvm/provider";
import { vncAccessOn } from "./management/vncAccess";
import { reverseDnsOn } from "./management/reverseDns";
import { trafficAlertOn } from "./management/trafficAlert";
import { processCore } from "./runtime";
import { connectEngineLog, inResource, linesDelivered, watchEngine } from "./engineLog";
import { RESOURCE_KEY } from "./journal";

// In Pulumi's dynamic-provider host (`node .../cmd/dynamic-provider/index.js <engine address>`), lines go to the engine.
if (/[\\/]cmd[\\/]dynamic-provider[\\/]index\.js$/.test(process.argv[1] ?? "") && /^[\w.-]+:[1-9]\d*$/.test(process.argv[2] ?? "")) {
    connectEngineLog(processCore, process.argv[2]);
    watchEngine(processCore, process.argv[2]);
}

/** Each call runs under the URN its inputs or state carry (the SDK passes it), and answers once its lines are delivered. */
function underItsUrn<T extends object>(impl: T): T {
    const urnOf = (args: unknown[]) =>
        args.map((a) => (a && typeof a === "object" ? (a as Record<string, unknown>)[RESOURCE_KEY] : undefined)).find((k): k is string => typeof k === "string");
    return Object.fromEntries(
        Object.entries(impl).map(([name, fn]) => [
            name,
            typeof fn !== "function"
                ? fn
                : async (...args: unknown[]) => {
                      try {
                          return await inResource(urnOf(args), async () => (fn as (...a: unknown[]) => Promise<unknown>).apply(impl, args))();
                      } finally {
                          await linesDelivered();
                      }
                  },
        ]),
    ) as T;
}

// The dynamic door: the host caches one provider per resource type; all four share the process's core.
export const kvmServer = guarded(underItsUrn(kvmServerOn(processCore)));
export const vncAccess = guarded(underItsUrn(vncAccessOn(processCore)));
export const reverseDns = guarded(underItsUrn(reverseDnsOn(processCore)));
export const trafficAlert = guarded(underItsUrn(trafficAlertOn(processCore)));
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
