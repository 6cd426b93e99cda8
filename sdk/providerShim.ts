/**
 * The provider object that `pulumi.dynamic.Resource` serializes into every resource's state (`__provider`).
 *
 * It must capture nothing: the closure serializer inlines by value whatever a function reaches, so a
 * captured zod schema fails to serialize, a captured path breaks when state moves to another machine, and
 * captured config would put credentials into state. Each method therefore only requires the implementation
 * by package name, which the provider host resolves from the project's node_modules, and delegates.
 *
 * Each resource type's shim is the whole export of its own module, `sdk/shim/<name>.ts`. The serializer writes
 * a value that is a module's export, in a package under node_modules, as a require of that module:
 * `require("pulumi-edis/dist/sdk/shim/<name>.js")`, about 260 bytes of state per resource instead of the
 * seven functions' 2,100. package.json exports each of these files under its own path, because the serializer
 * writes the file path whenever it cannot read the package's exports map. Where the package is not under
 * node_modules (a development link), it serializes the object below by value: correct, only larger.
 *
 * Delete and refresh run the shim stored at the last create or update: keep these names, the export paths and
 * the text stable, and put all logic behind the import.
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
