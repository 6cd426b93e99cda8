/**
 * The real `@pulumi/pulumi` dynamic-provider host, started as the engine starts it (a plain `node` process,
 * working directory = the project) and driven over gRPC with the engine's messages.
 */
import { ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { createInterface } from "node:readline";
import type * as grpcTypes from "@grpc/grpc-js";
import { SECRET_KEY, SECRET_SIG } from "./workspace";

// The gRPC runtime and protocol modules are the ones @pulumi/pulumi itself uses, resolved from it rather
// than from wherever npm happened to hoist them.
const pulumiDir = dirname(require.resolve("@pulumi/pulumi/package.json"));
const fromPulumi = (name: string) => require(require.resolve(name, { paths: [pulumiDir] }));
const grpc: typeof grpcTypes = fromPulumi("@grpc/grpc-js");
const provrpc = fromPulumi("@pulumi/pulumi/proto/provider_grpc_pb");
const provproto = fromPulumi("@pulumi/pulumi/proto/provider_pb");
const statusproto = fromPulumi("@pulumi/pulumi/proto/status_pb");
const structproto = fromPulumi("google-protobuf/google/protobuf/struct_pb");

export type Props = Record<string, unknown>;

/** A create or update that failed after the resource came to exist ("failed to initialise"). */
export class InitFailedError extends Error {
    constructor(
        message: string,
        readonly id: string,
        readonly properties: Props,
        readonly reasons: string[],
    ) {
        super(message);
        this.name = "InitFailedError";
    }
}

export interface HostOptions {
    /** The project directory: the host's working directory, where `require("pulumi-edis/provider")` resolves. */
    cwd: string;
    env?: NodeJS.ProcessEnv;
}

export class ProviderHost {
    /** Every line the host wrote to stdout after the port, and to stderr: what the engine shows as its log. */
    readonly log: string[] = [];
    /** Milliseconds from spawn until the host listened (printed its port). */
    spawnMs = 0;
    /**
     * The host's cold start: the Configure round trip plus the first resource call's, which is when the host
     * deserializes the provider, loads pulumi-edis/provider and runs its configure. `coldStartCall` names that
     * call: for `check` (offline) the figure is pure start-up; for `read` or `delete` it includes one API call.
     */
    coldStartMs = 0;
    coldStartCall = "";
    private client: any;
    private readonly started = Date.now();
    private configureMs = 0;

    private constructor(private readonly child: ChildProcess) {}

    static async start(options: HostOptions): Promise<ProviderHost> {
        // The project's own @pulumi/pulumi, as the engine's nodejs plugin runs it.
        const entry = require.resolve("@pulumi/pulumi/cmd/dynamic-provider", { paths: [options.cwd] });
        // The second argument is the engine's address; this host only requires that it is present.
        const child = spawn(process.execPath, [entry, "127.0.0.1:0"], {
            cwd: options.cwd,
            // A developer's machine unless a test says otherwise: in CI the provider warns of a journal on the runner's disk.
            env: { ...withoutCi(process.env), ...options.env },
            stdio: ["ignore", "pipe", "pipe"],
        });
        const host = new ProviderHost(child);
        const port = await new Promise<number>((resolve, reject) => {
            let seenPort = false;
            createInterface({ input: child.stdout! }).on("line", (line) => {
                if (!seenPort && /^\d+$/.test(line.trim())) {
                    seenPort = true;
                    resolve(Number(line.trim()));
                } else if (line.trim()) host.log.push(line);
            });
            createInterface({ input: child.stderr! }).on("line", (line) => void (line.trim() && host.log.push(line)));
            child.once("exit", (code) => reject(new Error(`provider host exited (${code}) before it listened: ${host.log.join("\n")}`)));
            child.once("error", reject);
        });
        host.client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
        host.spawnMs = Date.now() - host.started;
        return host;
    }

    /** Peak resident memory of the host process so far, in KiB (Linux). */
    peakRssKb(): number | undefined {
        try {
            const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${this.child.pid}/status`, "utf8"));
            return m ? Number(m[1]) : undefined;
        } catch {
            return undefined;
        }
    }

    /** Stops the host, as the engine does at the end of an operation; `signal` SIGKILL simulates a crash. */
    async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
        this.client?.close();
        if (this.child.exitCode !== null || this.child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
        this.child.kill(signal);
        await exited;
    }

    // ---- the engine's calls --------------------------------------------------------------------------

    /** The stack's whole config, keys namespaced; secrets are sent wrapped, as the engine sends them. */
    async configure(config: Record<string, string>, secretKeys: string[] = []): Promise<void> {
        const args: Props = {};
        for (const [k, v] of Object.entries(config)) args[k] = secretKeys.includes(k) ? { [SECRET_KEY]: SECRET_SIG, value: v } : v;
        const req = request("ConfigureRequest", { Args: args, Acceptsecrets: true, Acceptresources: true });
        for (const [k, v] of Object.entries(config)) req.getVariablesMap().set(k, v);
        const sent = Date.now();
        await this.call("configure", req);
        if (!this.configureMs) this.configureMs = Date.now() - sent;
    }

    async check(urn: string, olds: Props, news: Props): Promise<{ inputs: Props; failures: Array<{ property: string; reason: string }> }> {
        const resp = await this.call("check", request("CheckRequest", { Urn: urn, Olds: olds, News: news }));
        return {
            inputs: resp.getInputs()?.toJavaScript() ?? {},
            failures: resp.getFailuresList().map((f: any) => ({ property: f.getProperty(), reason: f.getReason() })),
        };
    }

    async diff(urn: string, id: string, olds: Props, news: Props, oldInputs: Props): Promise<{ changes: boolean; replaces: string[] }> {
        const resp = await this.call("diff", request("DiffRequest", { Urn: urn, Id: id, Olds: olds, News: news, OldInputs: oldInputs }));
        if (resp.getDeletebeforereplace() && resp.getReplacesList().length) throw new Error(`${urn}: the harness does not model deleteBeforeReplace; use the real CLI`);
        return { changes: resp.getChanges() === provproto.DiffResponse.DiffChanges.DIFF_SOME, replaces: resp.getReplacesList() };
    }

    async create(urn: string, props: Props): Promise<{ id: string; outputs: Props }> {
        const resp = await this.call("create", request("CreateRequest", { Urn: urn, Properties: props }));
        return { id: resp.getId(), outputs: resp.getProperties()?.toJavaScript() ?? {} };
    }

    async read(urn: string, id: string, props: Props, inputs: Props): Promise<{ id: string; outputs: Props; inputs?: Props }> {
        const resp = await this.call("read", request("ReadRequest", { Urn: urn, Id: id, Properties: props, Inputs: inputs }));
        return { id: resp.getId(), outputs: resp.getProperties()?.toJavaScript() ?? {}, inputs: resp.getInputs()?.toJavaScript() };
    }

    async update(urn: string, id: string, olds: Props, news: Props, oldInputs: Props): Promise<{ outputs: Props }> {
        const resp = await this.call("update", request("UpdateRequest", { Urn: urn, Id: id, Olds: olds, News: news, OldInputs: oldInputs }));
        return { outputs: resp.getProperties()?.toJavaScript() ?? {} };
    }

    async delete(urn: string, id: string, props: Props, oldInputs: Props): Promise<void> {
        await this.call("delete", request("DeleteRequest", { Urn: urn, Id: id, Properties: props, OldInputs: oldInputs }));
    }

    private call(method: string, req: unknown): Promise<any> {
        const first = method !== "configure" && !this.coldStartCall;
        if (first) this.coldStartCall = method;
        const sent = Date.now();
        return new Promise((resolve, reject) => {
            this.client[method](req, (err: grpcTypes.ServiceError | null, resp: unknown) => {
                if (first) this.coldStartMs = this.configureMs + (Date.now() - sent);
                if (!err) return resolve(resp);
                const init = decodeInitFailure(err);
                reject(init ?? new Error(err.details || err.message));
            });
        });
    }
}

/** A request message of the provider protocol: each field through its setter, property maps as Structs. */
function request(type: string, fields: Record<string, string | boolean | Props>): any {
    const req = new provproto[type]();
    for (const [name, value] of Object.entries(fields)) req[`set${name}`](typeof value === "object" ? structproto.Struct.fromJavaScript(value) : value);
    return req;
}

/** Reads `ErrorResourceInitFailed` from a gRPC error's status details, as the engine does. */
function decodeInitFailure(err: grpcTypes.ServiceError): InitFailedError | undefined {
    const raw = err.metadata?.get("grpc-status-details-bin")?.[0];
    if (!raw) return undefined;
    const status = statusproto.Status.deserializeBinary(new Uint8Array(raw as Buffer));
    for (const any of status.getDetailsList()) {
        if (!String(any.getTypeUrl()).endsWith("pulumirpc.ErrorResourceInitFailed")) continue;
        const detail = provproto.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
        return new InitFailedError(
            err.details || status.getMessage(),
            detail.getId(),
            detail.getProperties()?.toJavaScript() ?? {},
            detail.getReasonsList(),
        );
    }
    return undefined;
}

/** The environment without what tells a provider that it runs in CI (CI, GITHUB_ACTIONS, ...). */
export function withoutCi(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    return Object.fromEntries(Object.entries(env).filter(([k]) => !CI_VARIABLES.includes(k)));
}

const CI_VARIABLES = ["CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "JENKINS_URL", "TF_BUILD", "CIRCLECI"];
