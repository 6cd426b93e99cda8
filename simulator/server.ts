/** The EDIS API simulator over HTTP (127.0.0.1 only): faults, a request log, /_sim/ admin, optional state file. */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import http from "node:http";
import { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { Account, AccountBehaviour, AccountState, DEFAULT_BEHAVIOUR, SimError, newAccountState } from "./account";
import { ManagementApi } from "./management";

export const DEFAULT_EMAIL = "demo@example.com";
export const DEFAULT_PASSWORD = "edis-demo-password";

/** One injected failure, consumed call by call. */
export interface InjectedFault {
    /** Endpoint path such as "add/order" or "get/power", or "*" for every endpoint. */
    endpoint: string;
    /** How many calls it affects; default 1. */
    times?: number;
    /** Answer with this HTTP status (and a JSON error body unless `body` says otherwise). */
    status?: number;
    /** Seconds, sent as Retry-After. */
    retryAfter?: number;
    /** A malformed answer: an HTML page, an empty body, broken JSON, or a 200 with `status: "error"`. */
    body?: "html" | "empty" | "badjson" | "status-error";
    /** Answer with exactly this JSON document (HTTP `status`, default 200). */
    json?: unknown;
    /** Answer with exactly this text (HTTP `status`, default 200), e.g. a PHP notice before the JSON. */
    text?: string;
    /** Process the request first, then answer with `status`, `json` or `text`; `{{orderid}}`, `{{serviceids}}` etc. in them take the real values. */
    processed?: boolean;
    /** Drop the connection: before the request is processed, or after (the state change has happened). */
    drop?: "before" | "after";
    /** Never answer (a host behind a firewall, or down); logged as "unanswered". */
    hang?: boolean;
    /** The error message of the answer (a server that echoes the request, for redaction tests). */
    message?: string;
    /** Process the request, then send what this returns instead of the answer (a string as it is). In-process only. */
    rewrite?: (answer: Record<string, unknown>) => unknown;
}

export interface SimulatorOptions extends Partial<AccountBehaviour> {
    port?: number;
    email?: string;
    password?: string;
    credit?: number;
    /** A JSON file that keeps the account across restarts. */
    statePath?: string;
    latencyMs?: number;
    faults?: InjectedFault[];
    /** Sees each answer the simulator composes (not injected or dropped) before it is sent. */
    onAnswer?: (answer: SimAnswer) => void;
}

/** One answer as composed by the simulated account, with the request it answers. */
export interface SimAnswer {
    endpoint: string;
    httpStatus: number;
    request: Record<string, unknown>;
    body: unknown;
}

export interface LogEntry {
    seq: number;
    at: number;
    endpoint: string;
    /** Request fields, secrets masked. */
    fields: Record<string, unknown>;
    httpStatus: number;
    /** The answer's `status` field, or what happened instead ("dropped", "html", ...). */
    outcome: string;
    /** Who asked: the provider host and the SDK's lookups announce themselves differently. */
    userAgent: string;
    durationMs: number;
}

export class EdisSimulator {
    readonly account: Account;
    readonly management: ManagementApi;
    readonly log: LogEntry[] = [];
    latencyMs: number;
    readonly latencyByEndpoint: Record<string, number> = Object.create(null);
    /** Called as a request to the endpoint arrives (after its latency); EDIS acts once it settles: a test's gate, not a clock. */
    readonly holdByEndpoint: Record<string, () => Promise<unknown>> = Object.create(null);
    private faults: Array<InjectedFault & { times: number }> = [];
    private seq = 0;
    private inFlight = 0;
    private peakInFlight = 0;

    private constructor(
        private readonly server: http.Server,
        private readonly options: SimulatorOptions,
        state: AccountState,
    ) {
        this.latencyMs = options.latencyMs ?? 0;
        this.account = new Account(state, {
            ...DEFAULT_BEHAVIOUR,
            outOfStock: [],
            ...pick(options as Record<string, unknown>, Object.keys(DEFAULT_BEHAVIOUR)),
        });
        this.management = new ManagementApi(this.account);
        for (const f of options.faults ?? []) this.inject(f);
    }

    static async start(options: SimulatorOptions = {}): Promise<EdisSimulator> {
        const state = loadState(options) ?? newAccountState(options.email ?? DEFAULT_EMAIL, options.password ?? DEFAULT_PASSWORD, options.credit);
        // What the command line says wins over a saved state.
        if (options.email) state.email = options.email;
        if (options.password) state.password = options.password;
        if (options.credit !== undefined) state.credit = options.credit;
        const server = http.createServer();
        const sim = new EdisSimulator(server, options, state);
        server.on("request", (req, res) => void sim.handle(req, res));
        await new Promise<void>((resolve, reject) => {
            server.once("error", reject);
            server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
        });
        sim.save();
        return sim;
    }

    /** The `edis:*` stack config that points pulumi-edis at this simulator's account. */
    stackConfig(): Record<string, string> {
        const { email, password } = this.account.state;
        return {
            "edis:email": email,
            "edis:password": password,
            "edis:baseUrl": this.url,
            "edis:authUrl": this.url,
            "edis:managementUrl": this.managementUrl,
        };
    }

    /** The Management API hosts (each server's `api_host`, and `api_rdns`), all on this port: `{host}` names which. */
    get managementUrl(): string {
        return `${this.url}/_host/{host}`;
    }

    /** The base URL for both the order API and the session endpoint. */
    get url(): string {
        return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    }

    get behaviour(): AccountBehaviour {
        return this.account.behaviour;
    }

    async stop(): Promise<void> {
        this.server.closeAllConnections?.();
        await new Promise<void>((resolve) => this.server.close(() => resolve()));
    }

    inject(fault: InjectedFault): void {
        this.faults.push({ ...fault, times: fault.times ?? 1 });
    }

    clearFaults(): void {
        this.faults = [];
    }

    /** Log entries, optionally of one endpoint. */
    calls(endpoint?: string): LogEntry[] {
        return endpoint ? this.log.filter((e) => e.endpoint === endpoint) : [...this.log];
    }

    /** Calls per endpoint, e.g. `{ "get/auth": 1 }`. */
    callCounts(): Record<string, number> {
        const counts: Record<string, number> = {};
        for (const e of this.log) counts[e.endpoint] = (counts[e.endpoint] ?? 0) + 1;
        return counts;
    }

    clearLog(): void {
        this.log.length = 0;
        this.peakInFlight = this.inFlight;
    }

    /** The most requests the simulator was serving at one moment since the log was last cleared. */
    get peakConcurrency(): number {
        return this.peakInFlight;
    }

    /** What a person checking the account would see: orders placed, services and their status. */
    summary() {
        const s = this.account.state;
        return {
            orders: s.orders.length,
            failedOrders: s.orders.filter((o) => o.status === "Failed").length,
            services: s.services.map((x) => ({
                serviceId: x.serviceId,
                hostname: x.hostname,
                status: x.status,
                kvmId: x.kvmId,
                pid: x.pid,
                cancellation: x.cancellation?.type,
                power: x.power,
                vnc: x.vnc !== undefined,
                ptr: x.ptr ?? {},
                hooks: x.hooks?.length ?? 0,
            })),
            cancellations: s.cancellations.length,
            upgrades: s.upgrades.length,
            credit: s.credit.toFixed(2),
        };
    }

    save(): void {
        if (!this.options.statePath) return;
        const tmp = `${this.options.statePath}.tmp`;
        // The state holds the account's password: readable by its owner only.
        writeFileSync(tmp, JSON.stringify(this.account.state, null, 2), { mode: 0o600 });
        renameSync(tmp, this.options.statePath);
    }

    private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
        const started = Date.now();
        this.inFlight++;
        this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
        try {
            const chunks: Buffer[] = [];
            for await (const chunk of req) chunks.push(chunk);
            const raw = Buffer.concat(chunks).toString("utf8");
            const url = new URL(req.url ?? "/", "http://127.0.0.1");
            if (url.pathname.startsWith("/_sim/")) return this.admin(req, url, raw, res);
            const hosted = /^\/_host\/([^/]+)\/(.+)$/.exec(url.pathname);
            const match = /^\/kvm\/v2\/(.+)$/.exec(url.pathname);
            const endpoint = hosted ? hosted[2].replace(/^kvm\/v2\//, "") : (match?.[1] ?? url.pathname);
            const fields = parseFields(req.headers["content-type"], raw);
            const record = (httpStatus: number, outcome: string) =>
                this.log.push({
                    seq: ++this.seq,
                    at: started,
                    endpoint,
                    fields: maskFields(fields),
                    httpStatus,
                    outcome,
                    userAgent: String(req.headers["user-agent"] ?? ""),
                    durationMs: Date.now() - started,
                });

            const latency = this.latencyByEndpoint[endpoint] ?? this.latencyMs;
            if (latency > 0) await sleep(latency);
            await this.holdByEndpoint[endpoint]?.().catch(() => undefined);
            const fault = this.takeFault(endpoint);

            if (fault?.hang) return void record(0, "unanswered");
            if (fault?.drop === "before") {
                record(0, "dropped");
                return void req.socket.destroy();
            }
            const answersInstead = fault && [fault.status, fault.body, fault.json, fault.text].some((v) => v !== undefined);
            const inject = (f: InjectedFault, real: unknown, outcome: string) => {
                const { type, text } = injectedBody(f, f.status ?? 200, real as Record<string, unknown>);
                const retryAfter = !f.processed && f.retryAfter !== undefined ? { "retry-after": String(f.retryAfter) } : {};
                res.writeHead(f.status ?? 200, { ...retryAfter, "content-type": type }).end(text);
                record(f.status ?? 200, outcome);
            };
            if (answersInstead && !fault.processed) return inject(fault, {}, fault.body ?? "injected");

            let status = 200;
            let answer: unknown;
            try {
                if (req.method !== "POST") throw new SimError(400, "Use POST");
                answer = hosted ? this.management.handle(decodeURIComponent(hosted[1]), hosted[2], fields) : this.dispatch(endpoint, fields);
            } catch (e) {
                if (!(e instanceof SimError)) throw e;
                status = e.httpStatus;
                answer = { status: "error", message: e.message };
            }
            this.save();
            this.options.onAnswer?.({ endpoint, httpStatus: status, request: fields, body: answer });
            const said = String((answer as { status?: string }).status);
            if (fault?.drop === "after") {
                record(0, `dropped after ${said}`);
                return void req.socket.destroy();
            }
            if (answersInstead && fault.processed) return inject(fault, answer, `processed, then injected (${said})`);
            if (fault?.rewrite) answer = fault.rewrite(answer as Record<string, unknown>);
            res.writeHead(status, { "content-type": "application/json" }).end(typeof answer === "string" ? answer : JSON.stringify(answer));
            record(status, typeof answer === "string" ? "rewritten" : String((answer as { status?: string }).status));
        } catch (e) {
            res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ status: "error", message: String(e) }));
        } finally {
            this.inFlight--;
        }
    }

    private dispatch(endpoint: string, fields: Record<string, unknown>): unknown {
        const account = this.account;
        const handlers: Record<string, () => unknown> = {
            "get/locations": () => account.getLocations(),
            "get/products": () => account.getProducts(fields),
            "get/billingcycles": () => account.getBillingCycles(),
            "get/paymentmethods": () => account.getPaymentMethods(),
            "add/order": () => account.addOrder(fields),
            "get/kvmid": () => account.getKvmId(fields),
            "get/serviceid": () => account.getServiceId(fields),
            "cancel/product": () => account.cancelProduct(fields),
            "add/upgrade": () => account.addUpgrade(fields),
            "get/auth": () => account.getAuth(fields),
        };
        const handler = Object.hasOwn(handlers, endpoint) ? handlers[endpoint] : undefined;
        if (!handler) throw new SimError(404, `Unknown endpoint ${endpoint}`);
        account.authenticate(fields);
        account.advance();
        return handler();
    }

    private takeFault(endpoint: string): InjectedFault | undefined {
        const i = this.faults.findIndex((f) => f.endpoint === endpoint || f.endpoint === "*");
        if (i < 0) return undefined;
        const fault = this.faults[i];
        if (--fault.times <= 0) this.faults.splice(i, 1);
        return fault;
    }

    private admin(req: http.IncomingMessage, url: URL, raw: string, res: http.ServerResponse): void {
        const send = (status: number, body: unknown): void =>
            void res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
        const account = this.account;
        const method = req.method ?? "GET";
        const contentType = req.headers["content-type"];
        try {
            // JSON, or a form as curl --data sends it.
            const body = (contentType?.includes("application/x-www-form-urlencoded") ? parseFields(contentType, raw) : raw ? JSON.parse(raw) : {}) as Record<string, any>;
            const route = `${method} ${url.pathname}`;
            const id = Number(url.pathname.split("/")[3]);
            if (route === "GET /_sim/summary") return send(200, this.summary());
            if (route === "GET /_sim/state") return send(200, account.state);
            if (route === "GET /_sim/log") return send(200, this.log);
            if (route === "DELETE /_sim/log") return send(200, { cleared: this.log.splice(0).length });
            if (route === "POST /_sim/faults") {
                this.inject(body as InjectedFault);
                return send(200, { faults: this.faults.length });
            }
            if (route === "DELETE /_sim/faults") {
                this.clearFaults();
                return send(200, { faults: 0 });
            }
            if (route === "POST /_sim/behaviour") {
                if (body.latencyMs !== undefined) this.latencyMs = Number(body.latencyMs);
                Object.assign(account.behaviour, pick(body, Object.keys(DEFAULT_BEHAVIOUR)));
                return send(200, { ...account.behaviour, latencyMs: this.latencyMs });
            }
            if (method === "POST" && /^\/_sim\/invoices\/\d+\/pay$/.test(url.pathname)) account.payInvoice(id);
            else if (method === "POST" && /^\/_sim\/services\/\d+\/(suspend|unsuspend)$/.test(url.pathname))
                account.setSuspended(id, url.pathname.endsWith("/suspend"));
            else if (method === "POST" && /^\/_sim\/services\/\d+\/power\/(on|off)$/.test(url.pathname))
                account.setPower(id, url.pathname.endsWith("/on") ? "on" : "off");
            else if (route === "POST /_sim/api-access") {
                if (typeof body.enabled !== "boolean" && body.enabled !== "true" && body.enabled !== "false") {
                    throw new SimError(400, 'POST /_sim/api-access takes {"enabled": true|false}');
                }
                account.state.apiAccess = body.enabled === true || body.enabled === "true";
            } else if (method === "POST" && /^\/_sim\/services\/\d+\/cancel$/.test(url.pathname)) {
                const s = account.state.services.find((x) => x.serviceId === id && x.status !== "Cancelled");
                if (!s) throw new SimError(404, `Unknown service ${id}`);
                account.cancelService(s, body.type ?? "Immediate");
            } else if (route === "POST /_sim/password") {
                if (typeof body.password !== "string" || body.password === "") throw new SimError(400, 'POST /_sim/password takes {"password": "..."}');
                account.setPassword(body.password);
            }
            else throw new SimError(404, `No admin route ${route}`);
            this.save();
            send(200, { ok: true });
        } catch (e) {
            send(e instanceof SimError ? e.httpStatus : 400, { error: String((e as Error).message) });
        }
    }
}

function loadState(options: SimulatorOptions): AccountState | undefined {
    if (!options.statePath) return undefined;
    try {
        return JSON.parse(readFileSync(options.statePath, "utf8")) as AccountState;
    } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw new Error(`cannot read simulator state ${options.statePath}: ${(e as Error).message}`);
    }
}

function parseFields(contentType: string | undefined, raw: string): Record<string, unknown> {
    if (contentType?.includes("application/json")) {
        try {
            const parsed = JSON.parse(raw);
            return parsed && typeof parsed === "object" ? parsed : {};
        } catch {
            return {};
        }
    }
    return Object.fromEntries(new URLSearchParams(raw));
}

function maskFields(fields: Record<string, unknown>): Record<string, unknown> {
    const masked = { ...fields };
    for (const key of ["pw", "signature", "vnc_pw", "callback_pw"]) if (masked[key] !== undefined) masked[key] = "***";
    return masked;
}

function injectedBody(fault: InjectedFault, status: number, real: Record<string, unknown>): { type: string; text: string } {
    const fill = (text: string) => text.replace(/\{\{(orderid|serviceids|serviceid|invoiceid)\}\}/g, (_, k: string) => String(real[k] ?? real[`${k}s`] ?? ""));
    if (fault.text !== undefined) return { type: "text/html; charset=UTF-8", text: fill(fault.text) };
    if (fault.json !== undefined) return { type: "application/json", text: fill(JSON.stringify(fault.json)) };
    if (fault.body === "html") return { type: "text/html", text: `<html><body><h1>${status} Bad Gateway</h1></body></html>` };
    if (fault.body === "empty") return { type: "application/json", text: "" };
    if (fault.body === "badjson") return { type: "application/json", text: '{"status": "success", "data": ' };
    const message = fault.message ?? (fault.body === "status-error" ? "Internal processing error" : `Injected HTTP ${status}`);
    return { type: "application/json", text: JSON.stringify({ status: "error", message }) };
}

function pick(obj: Record<string, unknown>, keys: string[]): Record<string, unknown> {
    return Object.fromEntries(keys.filter((k) => obj[k] !== undefined).map((k) => [k, obj[k]]));
}
