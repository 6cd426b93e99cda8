import * as pulumi from "@pulumi/pulumi";
import * as edis from "pulumi-edis";

const config = new pulumi.Config();
// The public half of your key (`pulumi config set sshPublicKey "$(cat ~/.ssh/id_ed25519.pub)"`): without one,
// three paid servers would be ordered that nobody can log into, so the program stops and says so.
const sshPublicKey = config.require("sshPublicKey");

// Two locations, three servers: two web servers in Frankfurt, one database in Vienna.
const fleet = [
    { name: "web-1", location: "Frankfurt", minRamMb: 1024 },
    { name: "web-2", location: "Frankfurt", minRamMb: 1024 },
    { name: "db-1", location: "Vienna", minRamMb: 4096 },
];

const servers = fleet.map((s) => {
    const location = edis.getLocationOutput({ name: s.location });
    const plan = edis.getPlanOutput({ locationId: location.id, minRamMb: s.minRamMb });
    const os = edis.getOperatingSystemOutput({ locationId: location.id, planId: plan.id, nameRegex: "^Ubuntu" });
    return new edis.KvmServer(s.name, {
        locationId: location.id,
        planId: plan.id,
        osId: os.id,
        hostname: `${s.name}.example.com`,
        sshPublicKey,
        // A test fleet: stop paying the moment it is destroyed.
        cancellationType: "Immediate",
    }, {
        // The lookups pick the cheapest plan that fits and the newest Ubuntu; when EDIS adds a cheaper plan or
        // a newer release, that must not replace (re-order, and wipe) a running server. New servers get it.
        ignoreChanges: ["planId", "osId"],
    });
});

export const kvmIds = Object.fromEntries(fleet.map((s, i) => [s.name, servers[i].kvmId]));
export const apiHosts = Object.fromEntries(fleet.map((s, i) => [s.name, servers[i].apiHost]));
// What the fleet adds to the monthly bill at list price before tax, as each server was ordered (or last upgraded).
export const monthlyListPrice = pulumi.all(servers.map((s) => s.listPrice)).apply((prices) => {
    const priced = prices.filter((p): p is edis.ListPrice => p !== undefined);
    return `${priced.reduce((sum, p) => sum + p.monthly, 0).toFixed(2)} ${priced[0]?.currency ?? ""}`.trim();
});
