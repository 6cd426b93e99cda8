/** The simulated Management API: `api_host` (under /kvm/v2/) and `api_rdns` (at its root), routed by server.ts. */
import { Account, RDNS_API_HOST, SimError, SimService } from "./account";

export const API_HOST_ENDPOINTS = ["get/power", "set/poweron", "set/poweroff", "get/vnc/status", "set/vnc/enable", "set/vnc/disable", "hooks/set", "hooks/del"];
export const RDNS_HOST_ENDPOINTS = ["set/ptr", "del/ptr"];

const VNC_HOST = "vnc.edis-sim.invalid";

export class ManagementApi {
    constructor(private readonly account: Account) {}

    handle(host: string, path: string, fields: Record<string, unknown>): unknown {
        this.account.advance();
        const rdns = host === RDNS_API_HOST;
        const endpoint = rdns ? path : path.replace(/^kvm\/v2\//, "");
        const known = rdns ? RDNS_HOST_ENDPOINTS.includes(path) : path.startsWith("kvm/v2/") && API_HOST_ENDPOINTS.includes(endpoint);
        if (!known) throw new SimError(404, `Unknown endpoint ${path} on ${host}`);
        const server = this.authorize(host, rdns, fields);
        switch (endpoint) {
            case "get/power":
                return { status: "success", data: `server powered ${server.power ?? "on"}`, traffic_suspended: server.trafficSuspended ?? false };
            case "set/poweron":
            case "set/poweroff":
                server.power = endpoint === "set/poweron" ? "on" : "off";
                return { status: "success" };
            case "get/vnc/status":
                return server.vnc ? vncAnswer(server) : { status: "success", vnc_status: "disabled" };
            case "set/vnc/enable": {
                const pw = fields.vnc_pw;
                if (typeof pw !== "string" || !/^[A-Za-z0-9]{8}$/.test(pw)) throw new SimError(400, "vnc_pw must be exactly 8 letters or digits");
                server.vnc = { password: pw, port: 5900 + (server.serviceId % 100) };
                return vncAnswer(server);
            }
            case "set/vnc/disable":
                delete server.vnc;
                return { status: "success", msg: "vnc disabled" };
            case "set/ptr": {
                const records = parseJson(fields.ip, "ip");
                if (!records || typeof records !== "object" || Array.isArray(records)) throw new SimError(400, 'ip must be a JSON object {"<ip>": "<name>"}');
                if (fields.api_host !== server.apiHost) throw new SimError(400, "api_host does not name the server of this session");
                for (const [ip, name] of Object.entries(records)) {
                    if (!server.ips?.includes(ip)) throw new SimError(400, `${ip} is not an address of ${server.kvmId}`);
                    if (typeof name !== "string" || !/^([a-z0-9-]+\.)+[a-z0-9-]+\.?$/i.test(name)) throw new SimError(400, `invalid PTR name for ${ip}`);
                }
                server.ptr = { ...server.ptr, ...(records as Record<string, string>) };
                return { status: "success", message: "PTR records set successfully." };
            }
            case "del/ptr": {
                const ips = parseJson(fields.ip, "ip");
                if (!Array.isArray(ips)) throw new SimError(400, 'ip must be a JSON list ["<ip>"]');
                if (fields.api_host !== server.apiHost) throw new SimError(400, "api_host does not name the server of this session");
                for (const ip of ips) {
                    if (!server.ips?.includes(String(ip))) throw new SimError(400, `${String(ip)} is not an address of ${server.kvmId}`);
                    delete server.ptr?.[String(ip)];
                }
                return { status: "success" };
            }
            case "hooks/set": {
                const method = fields.callback_method;
                if (method !== "post" && method !== "get") throw new SimError(400, 'callback_method must be "post" or "get"');
                if (fields.type !== "traffic") throw new SimError(400, 'type must be "traffic"');
                const trigger = String(fields.trigger_value ?? "");
                if (trigger !== "demo" && !(/^\d{1,3}$/.test(trigger) && Number(trigger) >= 1 && Number(trigger) <= 100)) {
                    throw new SimError(400, "trigger_value must be a percentage from 1 to 100");
                }
                if (typeof fields.callback_url !== "string" || !/^https?:\/\/\S+$/.test(fields.callback_url)) throw new SimError(400, "callback_url must be an http or https URL");
                const id = 700_000 + this.account.state.nextId++;
                (server.hooks ??= []).push({
                    id,
                    method,
                    url: fields.callback_url,
                    trigger,
                    user: optionalString(fields.callback_user),
                    password: optionalString(fields.callback_pw),
                });
                return { status: "success", hook_id: String(id) };
            }
            case "hooks/del": {
                const id = Number(fields.id);
                const i = server.hooks?.findIndex((h) => h.id === id) ?? -1;
                if (i < 0) throw new SimError(404, `Webhook with ID ${String(fields.id)} not found`);
                server.hooks!.splice(i, 1);
                return { status: "success", message: `Webhook with ID ${id} has been deleted.` };
            }
        }
        throw new SimError(404, `Unknown endpoint ${path} on ${host}`);
    }

    private authorize(host: string, rdns: boolean, fields: Record<string, unknown>): SimService {
        if (this.account.state.apiAccess === false) {
            throw new SimError(401, "API access is not enabled. Enable it in the KVM portal of one of your servers.");
        }
        const server = this.account.listedService(fields.kvm_id);
        const validUntil = Number(fields.valid_until);
        const valid =
            server !== undefined &&
            typeof fields.signature === "string" &&
            Number.isInteger(validUntil) &&
            validUntil >= Math.floor(Date.now() / 1000) &&
            fields.signature === this.account.sign(server.kvmId!, validUntil);
        if (!valid) throw new SimError(401, "Invalid or expired session signature");
        if (!rdns && host !== server.apiHost) throw new SimError(401, `This host does not serve ${server.kvmId}`);
        return server;
    }
}

function vncAnswer(server: SimService) {
    return { status: "success", vnc_status: "enabled", novnc_port: 6080, vnc_port: String(server.vnc!.port), vnc_host: VNC_HOST };
}

function parseJson(raw: unknown, field: string): unknown {
    if (typeof raw !== "string") throw new SimError(400, `Missing ${field}`);
    try {
        return JSON.parse(raw);
    } catch {
        throw new SimError(400, `${field} is not valid JSON`);
    }
}

function optionalString(v: unknown): string | undefined {
    return typeof v === "string" && v !== "" ? v : undefined;
}
