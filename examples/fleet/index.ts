import * as pulumi from "@pulumi/pulumi";
import * as edis from "pulumi-edis";

const config = new pulumi.Config();
// The public half of your key; a placeholder key by default so that the example runs as it is.
const sshPublicKey =
    config.get("sshPublicKey") ??
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFleetExampleKeyReplaceMeWithYourOwn0000000000 fleet@example";

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
    });
});

export const kvmIds = Object.fromEntries(fleet.map((s, i) => [s.name, servers[i].kvmId]));
export const apiHosts = Object.fromEntries(fleet.map((s, i) => [s.name, servers[i].apiHost]));
