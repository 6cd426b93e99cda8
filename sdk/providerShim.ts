/**
 * The provider object `pulumi.dynamic.Resource` serializes into every resource's state (`__provider`). It must capture
 * nothing: the closure serializer inlines whatever a function reaches (a zod schema fails, a path breaks on another
 * machine, config would put credentials in state), so each method requires the implementation by package name. Each
 * type's shim is the whole export of `sdk/shim/<name>.ts`, written as a 260-byte `require` of that path (package.json
 * exports it; else a file path is written). Delete and refresh run the shim stored at the last create or update: keep
 * these names, export paths and text stable.
 */
import type * as pulumi from "@pulumi/pulumi";

/** The names under which `pulumi-edis/provider` exports each resource type's implementation. */
export type ProviderName = "kvmServer" | "vncAccess" | "reverseDns" | "trafficAlert";

/** The shim of one resource type. The closure serializer inlines `name` (a string) by value and nothing else. */
export function shimFor(name: ProviderName): pulumi.dynamic.ResourceProvider {
    return {
        configure: (req) => require("pulumi-edis/provider")[name].configure(req),
        check: (olds, news) => require("pulumi-edis/provider")[name].check(olds, news),
        diff: (id, olds, news) => require("pulumi-edis/provider")[name].diff(id, olds, news),
        create: (inputs) => require("pulumi-edis/provider")[name].create(inputs),
        read: (id, props) => require("pulumi-edis/provider")[name].read(id, props),
        update: (id, olds, news) => require("pulumi-edis/provider")[name].update(id, olds, news),
        delete: (id, props) => require("pulumi-edis/provider")[name].delete(id, props),
    };
}
