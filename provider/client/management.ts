/**
 * The Management API client: one server's own API at https://<api_host>/kvm/v2/... and the reverse-DNS API at
 * https://<api_rdns>/..., both named by the server's session entry (get/auth), on the same transport, retry
 * policy and error class as the order client (EdisClient), whose credentials never reach these hosts.
 *
 *   session(kvmId)             ─ get/auth with kvm_id, kept in memory until shortly before valid_until
 *   POST signature, kvm_id,    ─ a refusal of the session (HTTP 401/403; for a call that may be repeated, also
 *        valid_until + fields     words about the signature, session or API access) renews it once and repeats once
 *   refused again              ─ EdisApiError kind "session": API Access is off for the account
 *
 * Signatures are credentials: they are withheld (withhold.ts) from the moment get/auth returns them, go only
 * into request bodies, and are never returned to callers, logged or put into errors.
 */
import { z } from "zod";
import { ENDPOINTS, EdisClient, listedSession } from "./client";
import { refusesSession } from "./answers";
import { addSecret } from "./withhold";
import { EdisApiError, isEdisApiError, quoted } from "./errors";
import { CallbackMethod, KvmSession, PowerState, PowerStatus, TrafficHookRequest, VncStatus } from "./model";
import { request } from "./request";
import * as wire from "./schemas";

/**
 * A successful get/auth that did not hold the KVM asked for: an observation of EDIS's listing, not an answer's words.
 * Its own class, so that an error made from it with more context (`with`) is an ordinary one again.
 */
export class KvmNotListedError extends EdisApiError {
    constructor(kvmId: string) {
        super({ endpoint: ENDPOINTS.auth.path, kind: "refused", detail: `EDIS gave no session for KVM ${kvmId}` });
    }
}

/** The vendor's hosts: the session entry's `api_host` and `api_rdns`, over https. */
export const DEFAULT_MANAGEMENT_URL = "https://{host}";

interface ManagementEndpoint {
    path: string;
    /** "api": the server's own API host, paths under /kvm/v2/; "rdns": the reverse-DNS API host, paths at its root. */
    host: "api" | "rdns";
    /** "safe": a repeat leaves the same result (power switch, disable, same PTR, deleting a gone hook); "never": a lost answer may have made something. */
    retry: "safe" | "never";
}

export const MANAGEMENT_ENDPOINTS = {
    power: { path: "get/power", host: "api", retry: "safe" },
    powerOn: { path: "set/poweron", host: "api", retry: "safe" },
    // The vendor's page for power off shows no path; set/poweroff by analogy with set/poweron (EDIS-API.md).
    powerOff: { path: "set/poweroff", host: "api", retry: "safe" },
    vncStatus: { path: "get/vnc/status", host: "api", retry: "safe" },
    // Not repeated: the rule, and a lost answer says nothing about which password is now set.
    vncEnable: { path: "set/vnc/enable", host: "api", retry: "never" },
    vncDisable: { path: "set/vnc/disable", host: "api", retry: "safe" },
    ptrSet: { path: "set/ptr", host: "rdns", retry: "safe" },
    ptrDelete: { path: "del/ptr", host: "rdns", retry: "safe" },
    // Not idempotent: every call adds a hook, and hooks cannot be listed.
    hookSet: { path: "hooks/set", host: "api", retry: "never" },
    hookDelete: { path: "hooks/del", host: "api", retry: "safe" },
} as const satisfies Record<string, ManagementEndpoint>;

/** Renew a session this long before its `valid_until`, so that no call is sent with one about to expire. */
export const SESSION_RENEW_MARGIN_SECONDS = 60;
/** A session entry without `valid_until` is used for this long. */
const SESSION_DEFAULT_LIFETIME_SECONDS = 300;

export interface ManagementClientOptions {
    /** `{host}` becomes the session's `api_host` or `api_rdns` (default `https://{host}`); a URL without it gets every call (a proxy, the simulator). */
    urlTemplate?: string;
    now?: () => number;
}

/** How one call departs from its endpoint's rule. */
export interface CallOptions {
    /** Send it once, even where the endpoint may be repeated. */
    once?: boolean;
    /** A time limit shorter than the client's. */
    timeoutMs?: number;
}

/** A session entry in memory, with when to stop using it (its own `valid_until` is sent back untouched). */
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
        this.urlTemplate = (options.urlTemplate ?? DEFAULT_MANAGEMENT_URL).replace(/\/+$/, "");
        this.now = options.now ?? Date.now;
    }

    /** A refresh's readings pass `once` and a shorter `timeoutMs` (kvm/power.ts). */
    getPower(kvmId: string, options: CallOptions = {}): Promise<PowerStatus> {
        return this.call(kvmId, MANAGEMENT_ENDPOINTS.power, {}, wire.powerAnswer, options);
    }

    async setPower(kvmId: string, state: PowerState): Promise<void> {
        await this.call(kvmId, state === "on" ? MANAGEMENT_ENDPOINTS.powerOn : MANAGEMENT_ENDPOINTS.powerOff, {}, wire.acknowledged);
    }

    getVnc(kvmId: string): Promise<VncStatus> {
        return this.call(kvmId, MANAGEMENT_ENDPOINTS.vncStatus, {}, wire.vncAnswer);
    }

    /** `password`: exactly 8 letters or digits (the vendor's rule; the caller checks it before any call). */
    enableVnc(kvmId: string, password: string): Promise<VncStatus> {
        addSecret(password);
        return this.call(kvmId, MANAGEMENT_ENDPOINTS.vncEnable, { vnc_pw: password }, wire.vncAnswer);
    }

    async disableVnc(kvmId: string): Promise<void> {
        await this.call(kvmId, MANAGEMENT_ENDPOINTS.vncDisable, {}, wire.acknowledged);
    }

    /** Sets PTR records of the server's addresses: `{ "<ip>": "<name>" }`. */
    async setPtr(kvmId: string, records: Record<string, string>): Promise<void> {
        await this.call(kvmId, MANAGEMENT_ENDPOINTS.ptrSet, { ip: JSON.stringify(records) }, wire.acknowledged);
    }

    /** Removes the PTR records of the addresses. */
    async deletePtr(kvmId: string, ips: string[]): Promise<void> {
        await this.call(kvmId, MANAGEMENT_ENDPOINTS.ptrDelete, { ip: JSON.stringify(ips) }, wire.acknowledged);
    }

    /** Adds a traffic hook and returns its id. Sent once: a lost answer may have added a hook. */
    setTrafficHook(kvmId: string, hook: TrafficHookRequest): Promise<number> {
        addSecret(hook.callbackPassword);
        const method: CallbackMethod = hook.callbackMethod;
        return this.call(
            kvmId,
            MANAGEMENT_ENDPOINTS.hookSet,
            {
                callback_method: method,
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

    // ---- sessions and the one request path ------------------------------------------------------------

    /** Takes an entry the caller has (the account's listing), so a refresh does not ask get/auth per server; kept while valid. */
    remember(session: KvmSession): void {
        const held = this.hold(session);
        if (this.fresh(held)) this.sessions.set(session.kvmId, Promise.resolve(held));
    }

    /** Without a readable limit, renewed after a few minutes, not never; the time sits beside the entry: `valid_until` goes back as written. */
    private hold(session: KvmSession): HeldSession {
        const nowSeconds = Math.floor(this.now() / 1000);
        return { ...session, renewAfter: (session.validUntil ?? nowSeconds + SESSION_DEFAULT_LIFETIME_SECONDS) - SESSION_RENEW_MARGIN_SECONDS };
    }

    private fresh(session: HeldSession): boolean {
        return session.renewAfter > this.now() / 1000;
    }

    /** The KVM's session: the one in memory while it is valid, else a new one from get/auth. */
    private async session(kvmId: string, renew = false): Promise<HeldSession> {
        const held = renew ? undefined : await this.sessions.get(kvmId)?.catch(() => undefined);
        if (held && this.fresh(held)) return held;
        const pending = this.edis.getAuth(kvmId).then((listing) => {
            const entry = listedSession(listing, kvmId);
            if (!entry) {
                // EDIS's own listing of that KVM is empty: for the Management API's resources (nothing billed), gone.
                throw new KvmNotListedError(kvmId);
            }
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
        const repeatable = endpoint.retry === "safe" && !options.once;
        let session = await this.session(kvmId);
        try {
            return await this.send(session, endpoint, fields, schema, options);
        } catch (e) {
            // A call that must not be repeated (hooks/set) is never sent twice, whatever the refusal says.
            if (!isEdisApiError(e) || !repeatable || !refusesSession(e)) throw e;
        }
        // Expired early, revoked, or issued before a change on EDIS's side: one new session, one more try.
        session = await this.session(kvmId, true);
        try {
            return await this.send(session, endpoint, fields, schema, options);
        } catch (e) {
            if (isEdisApiError(e) && refusesSession(e)) throw e.with({ kind: "session" });
            throw e;
        }
    }

    private send<S extends z.ZodType>(session: KvmSession, endpoint: ManagementEndpoint, fields: Record<string, string | number>, schema: S, options: CallOptions) {
        const host = endpoint.host === "api" ? session.apiHost : session.apiRdns;
        if (!host || !/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d{1,5})?$/i.test(host)) {
            throw new EdisApiError({
                endpoint: endpoint.path,
                kind: "not_sent",
                detail: `the session of ${session.kvmId} names no usable ${endpoint.host === "api" ? "api_host" : "api_rdns"} (got ${quoted(JSON.stringify(host ?? null))})`,
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
                // The reverse-DNS API is told which server host the records belong to (the vendor's example).
                ...(endpoint.host === "rdns" ? { api_host: session.apiHost } : {}),
                ...fields,
            },
            schema,
            // Every Management API call is about the session's KVM.
            about: { kvmId: session.kvmId },
        });
    }
}
