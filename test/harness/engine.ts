/**
 * A stand-in for the Pulumi engine, for what the real CLI cannot do quickly: kill a provider host or a whole deployment
 * mid-call, and long chaos campaigns (bench/chaos.ts). The program runs in its own process under `setMocks`
 * (programRunner.ts); each resource it registers goes, with the `__provider` text `new KvmServer(...)` serialized, to
 * the real dynamic-provider host (providerHost.ts) in the engine's call order. State is a JSON file of outputs exactly
 * as the host returned them.
 *
 * Modelled, and compared with the real CLI step by step by calibration.cli.test.ts: create-before-delete replacement
 * and its old half, `replaceOnChanges` (which does nothing for a dynamic provider), init errors and the update of a
 * resource that has them, planned and real deletes of dropped resources, pending creates (kept only when the whole
 * deployment dies, `crash()`, until `refresh --clear-pending-creates`), refresh, a failing refresh that stops the
 * operation before any step, and the stack config recorded at the last up, which refresh, destroy and the refresh before
 * up and preview configure the provider from.
 *
 * Modelled from the engine's source (pkg/resource/deploy, pkg/engine at v3.259.0) and shown by no real-CLI test yet:
 * serial Check then Diff with old outputs and inputs, steps in parallel up to a limit, no step after a failure, the
 * new half of a replacement checked again without old inputs, the old inputs kept by a failed update, `ignoreChanges`,
 * aliases by name (the real CLI shows renames through identity.cli and ownership.cli), unknown outputs in preview, and
 * the change count behind `--expect-no-changes`.
 *
 * Refused, so that nothing is modelled wrongly: `Resource.get`, `deleteBeforeReplace` (the option or a Diff asking for
 * it), and aliases to another type, parent, stack or project or by URN. Not modelled: secrets in state, locks, invokes,
 * `protect`, targets, the display, and other providers. For those, use the real CLI (test/cli/pulumi.ts).
 */
import { ChildProcess, fork } from "node:child_process";
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EngineAnswer, ProgramJob, RunnerMessage } from "./programRunner";
import { InitFailedError, Props, ProviderHost } from "./providerHost";
import { PACKAGE_ROOT, Project, SECRET_KEY, SECRET_SIG, UNKNOWN, createProject } from "./workspace";

export interface ResourceState {
    urn: string;
    type: string;
    name: string;
    id: string;
    inputs: Props;
    outputs: Props;
    /** Set when create or update failed after the resource came to exist. */
    initErrors?: string[];
    /** The old half of a replacement whose delete has not happened yet; deleted by the next up. */
    pendingDelete?: boolean;
    /** URNs this resource depends on: a delete waits until every resource that depends on it is deleted. */
    dependencies?: string[];
}

export interface StackState {
    resources: ResourceState[];
    /** Creates that were under way when the engine lost contact (a crashed host). */
    pendingCreates: Array<{ urn: string; inputs: Props }>;
    /**
     * The stack config as the last up registered the default provider with it (the engine keeps it as that
     * provider's inputs): what refresh, destroy and the refresh before up and preview configure the provider from.
     */
    providerConfig?: { config: Record<string, string>; secretKeys: string[] };
}

export type StepOp = "create" | "update" | "same" | "replace" | "delete" | "read" | "refresh";

export interface Step {
    urn: string;
    name: string;
    op: StepOp;
    /** Inputs that changed (update, replace) or outputs that drifted (refresh). */
    changed?: string[];
    /** A refresh's result as the engine reports it: `same`, `update` (the provider's Diff saw a change) or `delete` (gone). */
    result?: "same" | "update" | "delete";
    error?: string;
}

export interface OperationResult {
    kind: "up" | "preview" | "refresh" | "destroy";
    ok: boolean;
    steps: Step[];
    /** What the engine warned about (e.g. pending creates of an interrupted deployment). */
    warnings: string[];
    /**
     * What `--expect-no-changes` looks at: a create, update, replace or delete in the plan, or in a
     * `pulumi refresh` a refreshed resource whose result is not `same`.
     */
    hasChanges: boolean;
    errors: string[];
    /** Stack outputs (up) */
    outputs?: Props;
    /** Per resource name: outputs whose value a refresh changed, with before and after. */
    drift: Record<string, Record<string, { before: unknown; after: unknown }>>;
    /** What the provider host logged. */
    hostLog: string[];
    durationMs: number;
    /** The provider host: spawn to listening, cold start (see ProviderHost.coldStartMs), peak memory. */
    host?: { spawnMs: number; coldStartMs: number; coldStartCall: string; peakRssKb?: number };
}

export interface StackOptions {
    /** A directory with Pulumi.yaml and the program (index.ts or index.js). */
    programDir: string;
    stack?: string;
    /** The whole stack config, keys namespaced ("edis:password"). */
    config?: Record<string, string>;
    secretKeys?: string[];
    /** How many resource operations run at once; the engine's --parallel. */
    parallelism?: number;
    /** Environment of the provider host and the program (e.g. EDIS_* fallbacks). */
    env?: NodeJS.ProcessEnv;
}

/** One stack of one project, with its state file. */
export class TestStack {
    /** The program's directory: a fresh one after `onFreshRunner`. */
    project: Project;
    readonly statePath: string;
    readonly stack: string;
    config: Record<string, string>;
    secretKeys: string[];
    parallelism: number;
    env: NodeJS.ProcessEnv;
    /** Called once the host is up, so that a test can act on it mid-operation (e.g. kill it). */
    onHostStarted?: (host: ProviderHost) => void;
    private running?: { op: Operation; program?: ChildProcess };
    /** The stack's secrets provider, as a passphrase provider: the key lives beside the state, never in it. */
    private readonly secretsProvider = new SecretsProvider();

    private constructor(
        private readonly workDir: string,
        private readonly options: StackOptions,
    ) {
        this.project = createProject(options.programDir, workDir);
        this.statePath = join(workDir, "state.json");
        this.stack = options.stack ?? "dev";
        this.config = { ...options.config };
        this.secretKeys = [...(options.secretKeys ?? [])];
        this.parallelism = options.parallelism ?? 16;
        this.env = { ...options.env };
        this.writeState({ resources: [], pendingCreates: [] });
    }

    static create(options: StackOptions): TestStack {
        return new TestStack(mkdtempSync(join(tmpdir(), "edis-stack-")), options);
    }

    /**
     * The next operations run from a fresh copy of the program in a new directory, and the last one's is deleted:
     * a CI runner with nothing on its disk. The stack's state (the backend's) stays, as it does in object storage.
     */
    onFreshRunner(): void {
        const old = this.project.dir;
        this.project = createProject(this.options.programDir, mkdtempSync(join(this.workDir, "runner-")));
        rmSync(old, { recursive: true, force: true });
    }

    setConfig(key: string, value: string, secret = false): void {
        this.config[key] = value;
        if (secret && !this.secretKeys.includes(key)) this.secretKeys.push(key);
    }

    state(): StackState {
        const state = JSON.parse(readFileSync(this.statePath, "utf8")) as StackState;
        if (state.providerConfig) mapConfigSecrets(state.providerConfig, (v) => this.secretsProvider.decrypt(v) as string);
        return state;
    }

    /** The state file as text, for looking for things that must never be in it. */
    stateText(): string {
        return readFileSync(this.statePath, "utf8");
    }

    resource(name: string): ResourceState | undefined {
        return this.state().resources.find((r) => r.name === name);
    }

    /**
     * Kills the running deployment at once, as a killed CI job does: engine, program and provider host die
     * together, and the state file keeps exactly what the engine had written, pending creates included.
     */
    async crash(): Promise<void> {
        const running = this.running;
        if (!running) throw new Error("no operation is running");
        running.op.crashed = true;
        running.program?.kill("SIGKILL");
        await running.op.host.stop("SIGKILL");
    }

    dispose(): void {
        rmSync(this.workDir, { recursive: true, force: true });
    }

    // ---- operations ----------------------------------------------------------------------------------

    /** `pulumi up`; it refreshes first with `refresh: true` or when the project sets `options: refresh: always`. */
    up(options: { refresh?: boolean } = {}): Promise<OperationResult> {
        return this.operation("up", async (op) => {
            const state = this.state();
            const refresh = this.refreshFirst(options);
            if (state.pendingCreates.length && !refresh) {
                // The engine only warns (deployment_executor.go, printPendingOperationsWarning; not when it previews or
                // refreshes) and runs the program, which creates those resources again: only the provider can keep
                // that from ordering twice.
                op.warnings.push(
                    `the stack has ${state.pendingCreates.length} pending create operation(s) from an interrupted deployment ` +
                        `(${state.pendingCreates.map((p) => p.urn).join(", ")}); these resources may exist without being in state`,
                );
            }
            if (refresh && !(await this.refreshResources(op, state))) return;
            await this.deploy(op, state, false);
        });
    }

    /** `pulumi preview`: nothing is written; it refreshes first as `up` does, in memory only. */
    preview(options: { refresh?: boolean } = {}): Promise<OperationResult> {
        return this.operation("preview", async (op) => {
            const state = this.state();
            if (this.refreshFirst(options) && !(await this.refreshResources(op, state))) return;
            await this.deploy(op, state, true);
        });
    }

    refresh(): Promise<OperationResult> {
        return this.operation("refresh", async (op) => {
            const state = this.state();
            await this.refreshResources(op, state);
            this.writeState(state);
        });
    }

    destroy(options: { refresh?: boolean } = {}): Promise<OperationResult> {
        return this.operation("destroy", async (op) => {
            const state = this.state();
            if (this.refreshFirst(options) && !(await this.refreshResources(op, state))) return;
            await this.deleteResources(op, state, [...state.resources].reverse());
            this.writeState(state);
        });
    }

    // ---- the engine's work ---------------------------------------------------------------------------

    /** An explicit --refresh / --refresh=false wins; otherwise the project's `options: refresh`. */
    private refreshFirst(options: { refresh?: boolean }): boolean {
        return options.refresh ?? this.project.refreshAlways;
    }

    private async operation(kind: OperationResult["kind"], body: (op: Operation) => Promise<void>): Promise<OperationResult> {
        const started = Date.now();
        const host = await ProviderHost.start({ cwd: this.project.dir, env: this.env });
        const op = new Operation(kind, host);
        this.running = { op };
        // Refresh and destroy configure the provider from the config recorded at the last up; the program's
        // registrations (up, preview) from the current config. When the two differ, the refresh before an up or a
        // preview runs in a provider of its own, as the engine's old and new default providers are two plugins.
        const current = { config: this.config, secretKeys: this.secretKeys };
        const recorded = this.state().providerConfig ?? current;
        const same = JSON.stringify(recorded.config) === JSON.stringify(current.config);
        try {
            this.onHostStarted?.(host);
            const main = kind === "refresh" || kind === "destroy" ? recorded : current;
            await host.configure(main.config, main.secretKeys);
            op.refreshHost = async () => {
                if (kind === "refresh" || kind === "destroy" || same) return host;
                const old = await ProviderHost.start({ cwd: this.project.dir, env: this.env });
                op.extraHosts.push(old);
                await old.configure(recorded.config, recorded.secretKeys);
                return old;
            };
            await body(op);
        } catch (e) {
            op.errors.push(e instanceof Error ? e.message : String(e));
        } finally {
            op.result.host = { spawnMs: host.spawnMs, coldStartMs: host.coldStartMs, coldStartCall: host.coldStartCall, peakRssKb: host.peakRssKb() };
            await host.stop();
            for (const h of op.extraHosts) await h.stop();
            this.running = undefined;
        }
        if (op.crashed) op.errors.unshift("the deployment was killed");
        const counted = op.result.steps.filter((s) =>
            kind === "refresh" ? s.op === "refresh" && s.result !== "same" : ["create", "update", "replace", "delete"].includes(s.op) && !s.error,
        );
        return {
            ...op.result,
            ok: op.errors.length === 0,
            hasChanges: counted.length > 0,
            errors: op.errors,
            warnings: op.warnings,
            hostLog: host.log,
            durationMs: Date.now() - started,
        };
    }

    /**
     * Reads every resource; false when a read failed, which stops an up, a preview or a destroy before the
     * program runs and before any delete (the engine ends the command there). A successful read clears init errors.
     */
    private async refreshResources(op: Operation, state: StackState): Promise<boolean> {
        const host = await op.refreshHost();
        let failed = false;
        await this.parallel([...state.resources], async (r) => {
            try {
                const read = await host.read(r.urn, r.id, r.outputs, r.inputs);
                if (!read.id) {
                    state.resources = state.resources.filter((x) => x.urn !== r.urn);
                    op.step({ urn: r.urn, name: r.name, op: "refresh", result: "delete", changed: ["(gone)"] });
                    return;
                }
                const drift = driftOf(r.outputs, read.outputs);
                if (Object.keys(drift).length) op.result.drift[r.name] = drift;
                const inputs = read.inputs && Object.keys(read.inputs).length ? read.inputs : r.inputs;
                // The engine's question: would an up of an unchanged program change this refreshed resource?
                // (Diff with the refreshed state as old and the stored inputs as new.)
                const changed = (await host.diff(r.urn, read.id, read.outputs, r.inputs, inputs)).changes;
                r.id = read.id;
                r.outputs = read.outputs;
                r.inputs = inputs;
                // RefreshStep.Apply: a successful refresh clears the init errors of a create that stopped half way.
                r.initErrors = undefined;
                op.step({ urn: r.urn, name: r.name, op: "refresh", result: changed ? "update" : "same", changed: Object.keys(drift) });
            } catch (e) {
                failed = true;
                op.fail({ urn: r.urn, name: r.name, op: "refresh" }, e);
            }
        });
        return !failed;
    }

    /** Runs the program and performs (or, in preview, plans) each registration; then deletes what it dropped. */
    private async deploy(op: Operation, state: StackState, preview: boolean): Promise<void> {
        const prior = new Map(state.resources.filter((r) => !r.pendingDelete).map((r) => [r.urn, r]));
        const registered = new Set<string>();
        const replaced: ResourceState[] = state.resources.filter((r) => r.pendingDelete);
        const gate = new Semaphore(this.parallelism);
        // The engine generates steps (Check, Diff) one registration at a time; only the steps run in parallel.
        const planning = new Semaphore(1);
        const save = () => !preview && this.writeState(state);
        // The old halves of replacements under way: they stay in state beside their new halves.
        const replacing = new Set<ResourceState>();
        // Resources found under an alias's URN: their state moves to the new URN when it is next written.
        const renamedFrom = new Map<string, string>();
        const put = (r: ResourceState) => {
            const was = renamedFrom.get(r.urn);
            state.resources = [...state.resources.filter((x) => (x.urn !== r.urn && x.urn !== was) || x.pendingDelete || replacing.has(x)), r];
            save();
        };
        // The program's first dynamic resource registers the default provider with the current config, which the
        // engine records (a program that fails before registering one leaves the recorded config as it was).
        const recordProviderConfig = () => {
            if (preview) return;
            state.providerConfig = { config: { ...this.config }, secretKeys: [...this.secretKeys] };
            save();
        };

        const register = async (msg: Extract<RunnerMessage, { kind: "register" }>): Promise<Omit<EngineAnswer, "kind" | "reqId">> => {
            if (!msg.type.startsWith("pulumi-nodejs:dynamic")) return { state: msg.custom ? {} : msg.inputs };
            if (registered.size === 0) recordProviderConfig();
            const urn = this.urnOf(msg.type, msg.name, msg.parent);
            if (registered.has(urn)) throw new Error(`Duplicate resource URN '${urn}'; try giving it a unique name`);
            registered.add(urn);
            const base = { urn, name: msg.name };
            // What state keeps of the registration itself, whatever the step.
            const recorded = { urn, type: msg.type, name: msg.name, dependencies: this.urnsOf(msg.dependencies) };
            // After a step has failed the engine starts no further step (no --continue-on-error).
            const stopped = () => {
                if (op.errors.length) throw new Error(`${urn}: not started, an earlier step failed`);
            };
            const step = async (): Promise<Omit<EngineAnswer, "kind" | "reqId">> => {
                stopped();
                // An alias names the URN this resource had: the engine takes that state as this resource's (a rename).
                let old = prior.get(urn);
                for (const alias of old ? [] : (msg.aliases ?? [])) {
                    const aliasUrn = this.urnOf(msg.type, alias.name ?? msg.name, msg.parent);
                    const found = prior.get(aliasUrn);
                    if (!found || registered.has(aliasUrn)) continue;
                    registered.add(aliasUrn);
                    renamedFrom.set(urn, aliasUrn);
                    old = { ...found, urn, name: msg.name };
                    prior.set(urn, old);
                    break;
                }
                // ignoreChanges: the engine keeps the old value of each listed input before Check and Diff.
                const news = { ...msg.inputs };
                for (const key of old ? msg.ignoreChanges : []) {
                    if (key in old!.inputs) news[key] = old!.inputs[key];
                    else delete news[key];
                }
                const { inputs, diff } = await planning.run(async () => {
                    stopped();
                    const checked = await op.host.check(urn, old?.inputs ?? {}, news);
                    if (checked.failures.length) {
                        throw new Error(`${urn} has a problem: ${checked.failures.map((f) => f.reason).join("; ")}`);
                    }
                    return { inputs: checked.inputs, diff: old ? await op.host.diff(urn, old.id, old.outputs, checked.inputs, old.inputs) : undefined };
                });
                if (!old || !diff) {
                    op.step({ ...base, op: "create" });
                    return preview ? {} : this.createResource(op, state, put, recorded, inputs);
                }
                // Replacement comes only from the provider's Diff: `replaceOnChanges` applies to the keys a Diff
                // reports as changed, and the dynamic host reports none, so the option changes nothing here.
                if (diff.changes && diff.replaces.length) {
                    op.step({ ...base, op: "replace", changed: diff.replaces });
                    if (preview) {
                        replaced.push(old);
                        return {};
                    }
                    // The new half is checked again, without old inputs.
                    const rechecked = await op.host.check(urn, {}, news);
                    if (rechecked.failures.length) {
                        throw new Error(`${urn} has a problem: ${rechecked.failures.map((f) => f.reason).join("; ")}`);
                    }
                    // The old half is marked for deletion only once the new create has returned (done or init error).
                    const markOld = () => {
                        old.pendingDelete = true;
                        replaced.push(old);
                        save();
                    };
                    replacing.add(old);
                    try {
                        const created = await this.createResource(op, state, put, recorded, rechecked.inputs);
                        markOld();
                        return created;
                    } catch (e) {
                        if (e instanceof InitFailedError) markOld();
                        throw e;
                    } finally {
                        replacing.delete(old);
                    }
                }
                if (!diff.changes && !old.initErrors?.length) {
                    op.step({ ...base, op: "same" });
                    if (!preview) put({ ...old, ...recorded, inputs });
                    return { id: old.id, state: old.outputs };
                }
                op.step({ ...base, op: "update", changed: differingKeys(old.inputs, inputs) });
                if (preview) {
                    // The engine previews an update with the new inputs as outputs: the rest is unknown to dependents.
                    const planned: Props = { ...inputs };
                    for (const key of Object.keys(old.outputs)) if (!(key in planned)) planned[key] = UNKNOWN;
                    return { id: old.id, state: planned };
                }
                try {
                    const updated = await op.host.update(urn, old.id, old.outputs, inputs, old.inputs);
                    put({ ...old, ...recorded, inputs, outputs: updated.outputs, initErrors: undefined });
                    return { id: old.id, state: updated.outputs };
                } catch (e) {
                    // A failed update keeps the old inputs; an init failure stores the outputs it carries.
                    if (e instanceof InitFailedError) put({ ...old, ...recorded, inputs: old.inputs, outputs: e.properties, initErrors: e.reasons });
                    throw e;
                }
            };
            return gate.run(async () => {
                try {
                    return await step();
                } catch (e) {
                    // The step this registration started failed: the engine reports it as failed.
                    const started = [...op.result.steps].reverse().find((s) => s.urn === urn);
                    if (started && !started.error) started.error = e instanceof Error ? e.message : String(e);
                    throw e;
                }
            });
        };

        // The program may end (a failed registration fails it) while other steps are still under way; the engine lets
        // steps in flight finish before it ends the deployment and stops the provider.
        const inFlight = new Set<Promise<unknown>>();
        const outputs = await this.runProgram(op, preview, async (msg) => {
            const step = register(msg);
            inFlight.add(step);
            try {
                return await step;
            } catch (e) {
                const message = e instanceof Error ? e.message : String(e);
                if (!/not started, an earlier step failed/.test(message)) op.errors.push(message);
                return { error: message };
            } finally {
                inFlight.delete(step);
            }
        });
        await Promise.allSettled([...inFlight]);
        op.result.outputs = outputs;
        if (op.errors.length === 0) {
            // Replaced resources and those the program no longer declares go last, newest first. Preview plans them.
            const dropped = state.resources.filter((r) => !registered.has(r.urn) && prior.has(r.urn)).reverse();
            if (preview) {
                for (const r of [...replaced, ...dropped]) op.step({ urn: r.urn, name: r.name, op: "delete" });
                return;
            }
            await this.deleteResources(op, state, [...replaced, ...dropped]);
        }
        if (!preview) this.writeState(state);
    }

    /**
     * Deletes each resource (up to the parallelism) and drops it from state; a failure keeps it there, and
     * keeps what it depends on too. As the engine does, a resource is deleted only after every resource being
     * deleted that depends on it (a TrafficAlert before its KvmServer).
     */
    private async deleteResources(op: Operation, state: StackState, resources: ResourceState[]): Promise<void> {
        let pending = [...resources];
        const failed = new Set<string>();
        while (pending.length) {
            const blockedBy = (r: ResourceState) => pending.some((d) => d !== r && d.dependencies?.includes(r.urn));
            const wave = pending.filter((r) => !blockedBy(r));
            if (wave.length === 0) throw new Error(`a dependency cycle among ${pending.map((r) => r.urn).join(", ")}`);
            pending = pending.filter((r) => !wave.includes(r));
            await this.parallel(wave, async (r) => {
                // A dependent that could not be deleted keeps what it depends on (the engine stops there too).
                if (resources.some((d) => failed.has(d.urn) && d.dependencies?.includes(r.urn))) {
                    failed.add(r.urn);
                    return;
                }
                try {
                    await op.host.delete(r.urn, r.id, r.outputs, r.inputs);
                    state.resources = state.resources.filter((x) => x !== r);
                    op.step({ urn: r.urn, name: r.name, op: "delete" });
                } catch (e) {
                    failed.add(r.urn);
                    op.fail({ urn: r.urn, name: r.name, op: "delete" }, e);
                }
            });
        }
    }

    private async createResource(
        op: Operation,
        state: StackState,
        put: (r: ResourceState) => void,
        res: { urn: string; type: string; name: string; dependencies?: string[] },
        inputs: Props,
    ): Promise<{ id: string; state: Props }> {
        // Only this create's own entry is settled: one that a killed deployment left stays until
        // `refresh --clear-pending-creates`, whatever happens to the resource since.
        const pending = { urn: res.urn, inputs };
        state.pendingCreates.push(pending);
        this.writeState(state);
        const settle = () => (state.pendingCreates = state.pendingCreates.filter((p) => p !== pending));
        try {
            const created = await op.host.create(res.urn, inputs);
            settle();
            put({ ...res, id: created.id, inputs, outputs: created.outputs });
            return { id: created.id, state: created.outputs };
        } catch (e) {
            // A dead engine writes nothing more: its pending create stays in the checkpoint.
            if (op.crashed) throw e;
            settle();
            if (e instanceof InitFailedError) put({ ...res, id: e.id, inputs, outputs: e.properties, initErrors: e.reasons });
            else this.writeState(state);
            throw e;
        }
    }

    private runProgram(
        op: Operation,
        preview: boolean,
        register: (msg: Extract<RunnerMessage, { kind: "register" }>) => Promise<Omit<EngineAnswer, "kind" | "reqId">>,
    ): Promise<Props | undefined> {
        const job: ProgramJob = {
            projectDir: this.project.dir,
            main: this.project.main,
            project: this.project.name,
            stack: this.stack,
            preview,
            config: this.config,
            secretKeys: this.secretKeys,
        };
        // Always the compiled runner: the program's process is plain node, whatever runs this harness.
        const runner = join(PACKAGE_ROOT, "dist", "test", "harness", "programRunner.js");
        return new Promise((resolve, reject) => {
            const child = fork(runner, [], {
                cwd: this.project.dir,
                env: { ...process.env, ...this.env, PULUMI_HARNESS_JOB: JSON.stringify(job) },
                stdio: ["ignore", "pipe", "pipe", "ipc"],
            });
            if (this.running) this.running.program = child;
            const output: string[] = [];
            child.stdout!.on("data", (c: Buffer) => output.push(c.toString()));
            child.stderr!.on("data", (c: Buffer) => output.push(c.toString()));
            let done = false;
            child.on("message", async (msg: RunnerMessage) => {
                if (msg.kind === "register") {
                    const answer = await register(msg);
                    // A program killed meanwhile (crash()) cannot be answered; the callback takes that error.
                    if (child.connected) child.send({ kind: "registered", reqId: msg.reqId, ...answer } satisfies EngineAnswer, () => undefined);
                } else if (msg.kind === "done") {
                    done = true;
                    if (msg.error && !op.errors.some((e) => msg.error!.includes(e) || e.includes(msg.error!))) {
                        op.errors.push(`program failed: ${msg.error}`);
                    }
                    resolve(msg.outputs);
                }
            });
            child.on("error", (e) => {
                if (!done && !op.crashed) reject(e);
            });
            child.on("exit", (code) => {
                if (done) return;
                if (op.crashed) resolve(undefined);
                else reject(new Error(`program exited (${code}) without finishing: ${output.join("").slice(-2000)}`));
            });
        });
    }

    private async parallel<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
        const gate = new Semaphore(this.parallelism);
        await Promise.all(items.map((item) => gate.run(() => fn(item))));
    }

    /**
     * The mock monitor names resources with the stack's type in front of their type chain
     * (`pulumi:pulumi:Stack$pulumi-nodejs:dynamic/edis:KvmServer`); the engine leaves the stack out.
     */
    private urnsOf(dependencies: string[]): string[] {
        return dependencies.map((urn) => {
            const [type, name] = urn.split("::").slice(-2);
            return this.urnOf(type.replace(/^pulumi:pulumi:Stack\$/, ""), name);
        });
    }

    /** The engine's URN: the types of the parents (not the stack), `$`-joined before the resource's own type. */
    private urnOf(type: string, name: string, parent?: string): string {
        const parentType = parent?.split("::")[2]?.replace(/^pulumi:pulumi:Stack\$?/, "");
        return `urn:pulumi:${this.stack}::${this.project.name}::${parentType ? `${parentType}$` : ""}${type}::${name}`;
    }

    private writeState(state: StackState): void {
        if (this.running?.op.crashed) return;
        const stored = structuredClone(state);
        if (stored.providerConfig) mapConfigSecrets(stored.providerConfig, (v) => this.secretsProvider.encrypt(v) as string);
        writeFileSync(this.statePath, JSON.stringify(stored, null, 2));
    }
}

/**
 * What the engine does with a secret in a checkpoint: its value is stored only as ciphertext. The engine marks
 * an output secret when the input of the same name was (plugin/provider_plugin.go, annotateSecrets) or when
 * the resource lists it in additionalSecretOutputs.
 */
class SecretsProvider {
    private readonly key = randomBytes(32);

    encrypt(value: unknown): unknown {
        const iv = randomBytes(12);
        const cipher = createCipheriv("aes-256-gcm", this.key, iv);
        const data = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
        return { [SECRET_KEY]: SECRET_SIG, ciphertext: `v1:${Buffer.concat([iv, cipher.getAuthTag(), data]).toString("base64")}` };
    }

    decrypt(value: unknown): unknown {
        const ciphertext = (value as { ciphertext?: unknown } | null)?.ciphertext;
        if ((value as Record<string, unknown> | null)?.[SECRET_KEY] !== SECRET_SIG || typeof ciphertext !== "string") return value;
        const raw = Buffer.from(ciphertext.slice(3), "base64");
        const decipher = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, 12));
        decipher.setAuthTag(raw.subarray(12, 28));
        return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8"));
    }
}

function mapConfigSecrets(recorded: { config: Record<string, unknown>; secretKeys: string[] }, f: (value: unknown) => unknown): void {
    for (const key of recorded.secretKeys) if (recorded.config[key] !== undefined) recorded.config[key] = f(recorded.config[key]);
}

/** One operation's running record. */
class Operation {
    readonly errors: string[] = [];
    readonly warnings: string[] = [];
    /** Set by TestStack.crash(): the engine is dead and writes no more state. */
    crashed = false;
    /** The provider that refreshes: configured from the config recorded in state (see operation()). */
    refreshHost: () => Promise<ProviderHost> = async () => this.host;
    /** Hosts started besides the main one, stopped with it. */
    readonly extraHosts: ProviderHost[] = [];
    readonly result: Omit<OperationResult, "ok" | "hasChanges" | "errors" | "warnings" | "hostLog" | "durationMs">;

    constructor(
        kind: OperationResult["kind"],
        readonly host: ProviderHost,
    ) {
        this.result = { kind, steps: [], drift: {} };
    }

    step(s: Step): void {
        this.result.steps.push(s);
    }

    fail(s: Step, e: unknown): void {
        const message = e instanceof Error ? e.message : String(e);
        this.result.steps.push({ ...s, error: message });
        this.errors.push(`${s.urn}: ${message}`);
    }
}

class Semaphore {
    private active = 0;
    private readonly queue: Array<() => void> = [];

    constructor(private readonly limit: number) {}

    async run<T>(fn: () => Promise<T>): Promise<T> {
        if (this.active >= this.limit) await new Promise<void>((r) => this.queue.push(r));
        this.active++;
        try {
            return await fn();
        } finally {
            this.active--;
            this.queue.shift()?.();
        }
    }
}

/** The properties whose values differ, leaving out the provider text. */
function differingKeys(before: Props, after: Props): string[] {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    return [...keys].filter((k) => k !== "__provider" && JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}

function driftOf(before: Props, after: Props): Record<string, { before: unknown; after: unknown }> {
    return Object.fromEntries(differingKeys(before, after).map((k) => [k, { before: before[k], after: after[k] }]));
}
