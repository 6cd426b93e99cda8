/**
 * The Management API client: a server's own API (`api_host`) and the reverse-DNS API (`api_rdns`), named by its
 * get/auth session entry. The account's credentials never reach these hosts; session signatures are credentials too,
 * sent only in request bodies. A refused session is renewed once; refused again, it is kind "session" (API Access off).
 */
import { z } from "zod";
import { ENDPOINTS, EdisClient, Endpoint, listedSession, trimSlash } from "./client";
import { refusesSession } from "./answers";
import { addSecret, withhold } from "./withhold";
import { EdisApiError, isEdisApiError } from "./errors";
import { KvmSession, PowerState, PowerStatus, TrafficHookRequest, VncStatus } from "./model";
import { request } from "./request";
import * as wire from "./schemas";

/** get/auth succeeded without the KVM asked for: an observation of EDIS's listing, not an answer's words. */
export class KvmNotListedError extends EdisApiError {
    constructor(kvmId: string) {
        super({ endpoint: ENDPOINTS.auth.path, kind: "refused", detail: `EDIS gave no session for KVM ${kvmId}` });
    }
}

export const DEFAULT_MANAGEMENT_URL = "https://{host}";

type ManagementEndpoint = Pick<Endpoint, "path" | "retry"> & { host: "api" | "rdns" };

export const MANAGEMENT_ENDPOINTS = {
    power: { path: "get/power", host: "api", retry: "safe" },
    powerOn: { path: "set/poweron", host: "api", retry: "safe" },
    // Undocumented path; by analogy with set/poweron (EDIS-API.md).
    powerOff: { path: "set/poweroff", host: "api", retry: "safe" },
    vncStatus: { path: "get/vnc/status", host: "api", retry: "safe" },
    // A lost answer says nothing about which password is now set.
    vncEnable: { path: "set/vnc/enable", host: "api", retry: "never" },
    vncDisable: { path: "set/vnc/disable", host: "api", retry: "safe" },
    ptrSet: { path: "set/ptr", host: "rdns", retry: "safe" },
    ptrDelete: { path: "del/ptr", host: "rdns", retry: "safe" },
    // Not idempotent: every call adds a hook, and hooks cannot be listed.
    hookSet: { path: "hooks/set", host: "api", retry: "never" },
    hookDelete: { path: "hooks/del", host: "api", retry: "safe" },
} as const satisfies Record<string, ManagementEndpoint>;

export const SESSION_RENEW_MARGIN_SECONDS = 60;
const SESSION_DEFAULT_LIFETIME_SECONDS = 300;

export interface ManagementClientOptions {
    /** `{host}` becomes `api_host` or `api_rdns`; a URL without it gets every call (a proxy, the simulator). */
    urlTemplate?: string;
    now?: () => number;
}

export interface CallOptions {
    once?: boolean;
    timeoutMs?: number;
}

/** `valid_until` is sent back untouched; `renewAfter` sits beside it. */
interface HeldSession extends KvmSession {
    renewAfter: number;
}

export class ManagementClient {
    private readonly sessions = new Map<string, Promise<HeldSession>>();
    private readonly urlTemplate: string;
    private readonly now: () => number;

    constructor(
        private readonly edis: EdisClient,
        options: ManagementClientOptions = {},
    ) {
        this.urlTemplate = trimSlash(options.urlTemplate ?? DEFAULT_MANAGEMENT_URL);
        this.now = options.now ?? Date.now;
    }

    getPower(kvmId: string, options: CallOptions = {}): Promise<PowerStatus> {
        return this.call(kvmId, MANAGEMENT_ENDPOINTS.power, {}, wire.powerAnswer, options);
    }

    async setPower(kvmId: string, state: PowerState): Promise<void> {
        await this.call(kvmId, MANAGEMENT_ENDPOINTS[state === "on" ? "powerOn" : "powerOff"], {}, wire.acknowledged);
    }

    getVnc(kvmId: string): Promise<VncStatus> {
        return this.call(kvmId, MANAGEMENT_ENDPOINTS.vncStatus, {}, wire.vncAnswer);
    }

    /** `password`: exactly 8 letters or digits, checked by the caller. */
    enableVnc(kvmId: string, password: string): Promise<VncStatus> {
        addSecret(password);
        return this.call(kvmId, MANAGEMENT_ENDPOINTS.vncEnable, { vnc_pw: password }, wire.vncAnswer);
    }

    async disableVnc(kvmId: string): Promise<void> {
        await this.call(kvmId, MANAGEMENT_ENDPOINTS.vncDisable, {}, wire.acknowledged);
    }

    async setPtr(kvmId: string, records: Record<string, string>): Promise<void> {
        await this.call(kvmId, MANAGEMENT_ENDPOINTS.ptrSet, { ip: JSON.stringify(records) }, wire.acknowledged);
    }

    async deletePtr(kvmId: string, ips: string[]): Promise<void> {
        await this.call(kvmId, MANAGEMENT_ENDPOINTS.ptrDelete, { ip: JSON.stringify(ips) }, wire.acknowledged);
    }

    /** Adds a traffic hook and returns its id. Sent once: a lost answer may have added a hook. */
    setTrafficHook(kvmId: string, hook: TrafficHookRequest): Promise<number> {
        addSecret(hook.callbackPassword);
        return this.call(
            kvmId,
            MANAGEMENT_ENDPOINTS.hookSet,
            {
                callback_method: hook.callbackMethod,
                callback_url: hook.callbackUrl,
                type: "traffic",
                trigger_value: String(hook.triggerPercent),
                ...(hook.callbackUser ? { callback_user: hook.callbackUser } : {}),
                ...(hook.callbackPassword ? { callback_pw: hook.callbackPassword } : {}),
            },
            wire.hookAnswer,
        );
    }

    async deleteTrafficHook(kvmId: string, hookId: number): Promise<void> {
        await this.call(kvmId, MANAGEMENT_ENDPOINTS.hookDelete, { id: hookId }, wire.acknowledged);
    }

    /** Takes an entry from the account's listing, so a refresh does not ask get/auth per server. */
    remember(session: KvmSession): void {
        const held = this.hold(session);
        if (this.fresh(held)) this.sessions.set(session.kvmId, Promise.resolve(held));
    }

    private hold(session: KvmSession): HeldSession {
        const nowSeconds = Math.floor(this.now() / 1000);
        return { ...session, renewAfter: (session.validUntil ?? nowSeconds + SESSION_DEFAULT_LIFETIME_SECONDS) - SESSION_RENEW_MARGIN_SECONDS };
    }

    private fresh(session: HeldSession): boolean {
        return session.renewAfter > this.now() / 1000;
    }

    private async session(kvmId: string, renew = false): Promise<HeldSession> {
        const held = renew ? undefined : await this.sessions.get(kvmId)?.catch(() => undefined);
        if (held && this.fresh(held)) return held;
        const pending = this.edis.getAuth(kvmId).then((listing) => {
            const entry = listedSession(listing, kvmId);
            // For the Management API's resources (nothing billed), an empty listing means gone.
            if (!entry) throw new KvmNotListedError(kvmId);
            return this.hold(entry);
        });
        this.sessions.set(kvmId, pending);
        pending.catch(() => this.sessions.get(kvmId) === pending && this.sessions.delete(kvmId));
        return pending;
    }

    private async call<S extends z.ZodType>(
        kvmId: string,
        endpoint: ManagementEndpoint,
        fields: Record<string, string | number>,
        schema: S,
        options: CallOptions = {},
    ): Promise<z.output<S>> {
        const session = await this.session(kvmId);
        try {
            return await this.send(session, endpoint, fields, schema, options);
        } catch (e) {
            if (!isEdisApiError(e) || !refusesSession(e)) throw e;
            // Never repeated: a 401/403 is the session's (the account's e-mail and password never reach these hosts).
            if (endpoint.retry !== "safe" && e.kind === "credentials") throw e.with({ kind: "session" });
            if (endpoint.retry !== "safe" || options.once) throw e;
        }
        const renewed = await this.session(kvmId, true);
        try {
            return await this.send(renewed, endpoint, fields, schema, options);
        } catch (e) {
            throw isEdisApiError(e) && refusesSession(e) ? e.with({ kind: "session" }) : e;
        }
    }

    private send<S extends z.ZodType>(session: KvmSession, endpoint: ManagementEndpoint, fields: Record<string, string | number>, schema: S, options: CallOptions) {
        const host = endpoint.host === "api" ? session.apiHost : session.apiRdns;
        if (!host || !/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d{1,5})?$/i.test(host)) {
            throw new EdisApiError({
                endpoint: endpoint.path,
                kind: "not_sent",
                detail: `the session of ${session.kvmId} names no usable ${endpoint.host === "api" ? "api_host" : "api_rdns"} (got ${withhold(JSON.stringify(host ?? null))})`,
            });
        }
        const base = this.urlTemplate.replace("{host}", host);
        return request(this.edis.settings, {
            endpoint: endpoint.path,
            url: endpoint.host === "api" ? `${base}/kvm/v2/${endpoint.path}` : `${base}/${endpoint.path}`,
            encoding: "form",
            retry: options.once ? "never" : endpoint.retry,
            timeoutMs: options.timeoutMs,
            fields: {
                signature: session.signature,
                kvm_id: session.kvmId,
                valid_until: session.validUntilText ?? "",
                ...(endpoint.host === "rdns" ? { api_host: session.apiHost } : {}),
                ...fields,
            },
            schema,
            about: { kvmId: session.kvmId },
        });
    }
}
