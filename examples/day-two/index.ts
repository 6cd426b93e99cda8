import * as pulumi from "@pulumi/pulumi";
import * as edis from "pulumi-edis";

// Day two of one server, through its Management API. API Access must be enabled once in the KVM portal.
const config = new pulumi.Config();
const sshPublicKey = config.require("sshPublicKey");

const location = edis.getLocationOutput({ name: "Frankfurt" });
const plan = edis.getPlanOutput({ locationId: location.id, minRamMb: 2048 });
const os = edis.getOperatingSystemOutput({ locationId: location.id, planId: plan.id, nameRegex: "^Debian" });

const server = new edis.KvmServer("web", {
    locationId: location.id,
    planId: plan.id,
    osId: os.id,
    hostname: "web-1.example.com",
    sshPublicKey,
    // "off" powers it off after provisioning (it is still billed); a refresh shows it if someone changes it.
    powerState: config.get<"on" | "off">("powerState") ?? "on",
}, { ignoreChanges: ["planId", "osId"] });

// The VNC console, with an 8-character password kept as a secret (`pulumi config set --secret vncPassword`).
const vnc = new edis.VncAccess("web-vnc", { kvmId: server.kvmId, password: config.requireSecret("vncPassword") });

// The PTR record of the server's address: the address comes from the KVM portal (the API does not list it).
const publicIp = config.get("publicIp");
if (publicIp) new edis.ReverseDns("web-ptr", { kvmId: server.kvmId, ipAddress: publicIp, dnsPtr: "web-1.example.com" });

// A call to your endpoint when 80 % of the month's traffic is used.
const alert = new edis.TrafficAlert("web-traffic", {
    kvmId: server.kvmId,
    callbackUrl: config.get("trafficHookUrl") ?? "https://hooks.example.com/edis-traffic",
    triggerPercent: 80,
});

export const kvmId = server.kvmId;
export const powerState = server.powerState;
export const trafficSuspended = server.trafficSuspended;
export const vncEndpoint = pulumi.interpolate`${vnc.host}:${vnc.port}`;
export const trafficHookId = alert.hookId;
