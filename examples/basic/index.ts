import * as pulumi from "@pulumi/pulumi";
import * as edis from "pulumi-edis";

const config = new pulumi.Config();

// Choose by name and need, not by numeric ids: the cheapest plan with enough RAM, the newest Debian.
const location = edis.getLocationOutput({ name: config.get("location") ?? "Frankfurt" });
const plan = edis.getPlanOutput({ locationId: location.id, minRamMb: config.getNumber("minRamMb") ?? 2048 });
const os = edis.getOperatingSystemOutput({ locationId: location.id, planId: plan.id, nameRegex: config.get("os") ?? "^Debian" });

const server = new edis.KvmServer(
    "web",
    {
        locationId: location.id,
        planId: plan.id,
        osId: os.id,
        hostname: config.get("hostname") ?? "web-1.example.com",
    },
    {
        // What the lookups pick changes when EDIS's catalogue does (a newer Debian, a cheaper plan). Without this, such a
        // change would replace the running server: a new paid order, and the old one cancelled with its data. To move
        // a server to what the lookups pick now, remove the line for one `pulumi up`, or replace it explicitly.
        ignoreChanges: ["planId", "osId"],
    },
);

export const kvmId = server.kvmId;
export const apiHost = server.apiHost;
export const serviceId = server.serviceId;
export const planName = plan.name;
export const osName = os.name;
export const monthlyPrice = pulumi.interpolate`${plan.prices.apply((p) => p.monthly?.toFixed(2))} ${plan.currency}`;
