import * as pulumi from "@pulumi/pulumi";
import * as edis from "pulumi-edis";

const seen = edis.KvmServer.get("seen", new pulumi.Config().require("serviceId"));

// Every output KvmServerReading types, by name: the test checks that each has a value.
export const reading = {
    serviceId: seen.serviceId,
    kvmId: seen.kvmId,
    apiHost: seen.apiHost,
    apiRdns: seen.apiRdns,
    description: seen.description,
    suspended: seen.suspended,
    lps: seen.lps,
    lpsIsPremium: seen.lpsIsPremium,
} satisfies { [K in keyof edis.KvmServerReading as edis.KvmServerReading[K] extends pulumi.Output<unknown> ? (K extends "urn" | "id" ? never : K) : never]: unknown };
