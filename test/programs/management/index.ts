import * as pulumi from "@pulumi/pulumi";
import * as edis from "pulumi-edis";

// One server, and what the stack config asks for on it; each up of a test changes only the config.
const config = new pulumi.Config();
const server = new edis.KvmServer("web", config.requireObject<edis.KvmServerArgs>("server"));

const vncPassword = config.getSecret("vncPassword");
const vnc = vncPassword ? new edis.VncAccess("web-vnc", { kvmId: server.kvmId, password: vncPassword }) : undefined;

const ptr = config.getObject<{ ipAddress: string; dnsPtr: string }>("ptr");
const rdns = ptr ? new edis.ReverseDns("web-ptr", { kvmId: server.kvmId, ...ptr }) : undefined;

const alert = config.getObject<Omit<edis.TrafficAlertArgs, "kvmId" | "callbackPassword">>("alert");
const callbackPassword = config.getSecret("callbackPassword");
const traffic = alert ? new edis.TrafficAlert("web-traffic", { kvmId: server.kvmId, ...alert, callbackPassword }) : undefined;

export const powerState = server.powerState;
export const trafficSuspended = server.trafficSuspended;
export const vncEndpoint = vnc ? pulumi.interpolate`${vnc.host}:${vnc.port}` : undefined;
export const ptrName = rdns?.dnsPtr;
export const hookId = traffic?.hookId;
