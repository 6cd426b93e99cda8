import * as pulumi from "@pulumi/pulumi";
import * as edis from "pulumi-edis";

// The servers to declare, by resource name, as stack config: each up of a test changes only its config,
// the way a user edits a program between runs. The namespace is named: a stack renamed into another project keeps it.
const config = new pulumi.Config("edis-servers");
const servers = config.requireObject<Record<string, edis.KvmServerArgs>>("servers");

// Resource options by server name (replaceOnChanges, ignoreChanges, protect, aliases).
const options = config.getObject<Record<string, pulumi.CustomResourceOptions>>("options") ?? {};

const resources = Object.fromEntries(Object.entries(servers).map(([name, args]) => [name, new edis.KvmServer(name, args, options[name])]));

// Traffic alerts by server name (trigger percent): what the chaos campaign adds to test hooks/set's once-only rule.
const alerts = config.getObject<Record<string, number>>("alerts") ?? {};
for (const [name, triggerPercent] of Object.entries(alerts)) {
    new edis.TrafficAlert(`${name}-traffic`, { kvmId: resources[name].kvmId, callbackUrl: `https://hooks.example.com/${name}`, triggerPercent });
}

// Servers inside components, by component type then server name (a component of type test:index:WebTier is named
// "web"): equal names under parents of two types are two resources with two URNs.
class Tier extends pulumi.ComponentResource {
    constructor(type: string, servers: Record<string, edis.KvmServerArgs>, opts?: pulumi.ComponentResourceOptions) {
        super(`test:index:${type}`, type.replace(/Tier$/, "").toLowerCase(), {}, opts);
        for (const [server, args] of Object.entries(servers)) new edis.KvmServer(server, args, { parent: this });
    }
}
const components = config.getObject<Record<string, Record<string, edis.KvmServerArgs>>>("components") ?? {};
for (const [name, servers] of Object.entries(components)) new Tier(name, servers);

export const kvmIds = Object.fromEntries(Object.entries(resources).map(([name, s]) => [name, s.kvmId]));
export const serviceIds = Object.fromEntries(Object.entries(resources).map(([name, s]) => [name, s.serviceId]));
