/**
 * The provider object that `pulumi.dynamic.Resource` serializes into every KvmServer's state (`__provider`).
 *
 * It must capture nothing: the closure serializer inlines by value whatever a function reaches, so a
 * captured zod schema fails to serialize, a captured path breaks when state moves to another machine, and
 * captured config would put credentials into state. Each method therefore only requires the implementation
 * by package name, which the provider host resolves from the project's node_modules, and delegates.
 * Delete and refresh run the shim stored at the last create or update: keep this text stable and put all
 * logic behind the import.
 */
import type * as pulumi from "@pulumi/pulumi";

export const kvmServerShim: pulumi.dynamic.ResourceProvider = {
    configure: (req) => require("pulumi-edis/provider").kvmServer.configure(req),
    check: (olds, news) => require("pulumi-edis/provider").kvmServer.check(olds, news),
    diff: (id, olds, news) => require("pulumi-edis/provider").kvmServer.diff(id, olds, news),
    create: (inputs) => require("pulumi-edis/provider").kvmServer.create(inputs),
    read: (id, props) => require("pulumi-edis/provider").kvmServer.read(id, props),
    update: (id, olds, news) => require("pulumi-edis/provider").kvmServer.update(id, olds, news),
    delete: (id, props) => require("pulumi-edis/provider").kvmServer.delete(id, props),
};

/**
 * The same shim for the Management API resources, by the name under which `pulumi-edis/provider` exports each
 * one's implementation. The closure serializer inlines `name` (a string) by value and nothing else.
 */
function managementShim(name: "vncAccess" | "reverseDns" | "trafficAlert"): pulumi.dynamic.ResourceProvider {
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

export const vncAccessShim = managementShim("vncAccess");
export const reverseDnsShim = managementShim("reverseDns");
export const trafficAlertShim = managementShim("trafficAlert");
