// The real Pulumi CLI (pinned by .ci/install-pulumi.sh; PULUMI_EDIS_CLI_BIN names its bin dir) on a file:// backend:
// nothing models the engine. Each stack has its own PULUMI_HOME and backend; `ops` comes from the engine's --event-log.
import { ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, sep } from "node:path";
import { ECHOES } from "../support/echoes";
import { PACKAGE_ROOT, Project, createProject, transpileProgram, withoutCi } from "../support/workspace";

let cachedBin: string | undefined;

/** The bin directory with `pulumi`, `pulumi-language-nodejs` and `pulumi-resource-pulumi-nodejs`. */
export function pulumiBinDir(): string {
    if (cachedBin) return cachedBin;
    const given = process.env.PULUMI_EDIS_CLI_BIN;
    if (given) {
        if (!existsSync(join(given, "pulumi"))) throw new Error(`PULUMI_EDIS_CLI_BIN=${given} holds no pulumi executable`);
        return (cachedBin = given);
    }
    // Reuses the cache when the pinned version is there; builds it otherwise (minutes, once per machine).
    const out = execFileSync("bash", [join(PACKAGE_ROOT, ".ci", "install-pulumi.sh")], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
    return (cachedBin = out.trim().split("\n").pop()!);
}

const TEST_PROGRAMS = join(PACKAGE_ROOT, "test", "programs") + sep;

/** test/programs run transpiled (TS loading costs a seventh of a command's CPU); examples/ run as TypeScript. */
function asJavaScript(dir: string): void {
    const source = join(dir, "index.ts");
    if (!existsSync(source)) return;
    writeFileSync(join(dir, "index.js"), transpileProgram(readFileSync(source, "utf8"), source));
    rmSync(source);
    const yaml = join(dir, "Pulumi.yaml");
    writeFileSync(yaml, readFileSync(yaml, "utf8").replace(/^runtime: nodejs$/m, "runtime:\n  name: nodejs\n  options:\n    typescript: false"));
}

/** One engine event of `--event-log` (only the parts tests read). */
export interface EngineEvent {
    resourcePreEvent?: { metadata: StepMetadata };
    resOpFailedEvent?: { metadata: StepMetadata };
    diagnosticEvent?: { urn?: string; message: string; severity: string };
    summaryEvent?: { resourceChanges: Record<string, number> };
}

export interface StepMetadata {
    op: string;
    urn: string;
    type: string;
    detailedDiff?: Record<string, { diffKind: string }>;
}

export interface CliResult {
    command: string;
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    /** stdout and stderr together, as a CI log holds them. */
    output: string;
    events: EngineEvent[];
    /** Each custom resource's operations (refresh steps included), by name, as the engine reported them; a failed one ends in "!". */
    ops: Record<string, string[]>;
    /** The summary line's counts (`create`, `update`, `same`, `delete`, ...), when the engine got that far. */
    changes?: Record<string, number>;
    durationMs: number;
}

export interface CliStackOptions {
    programDir: string;
    config?: Record<string, string>;
    secretKeys?: string[];
    /** More environment for every command (EDIS_* fallbacks, ...). */
    env?: NodeJS.ProcessEnv;
    /** `programDir` is an npm-installed project: run it in place. */
    installed?: boolean;
    /** The directory of the `@pulumi/pulumi` release the project installs, when not this package's own. */
    pulumiSdk?: string;
    /** Another runner of that stack: a fresh checkout of its Pulumi.<stack>.yaml and passphrase, on `env`'s backend. */
    checkoutOf?: CliStack;
}

// One passphrase per jest test file (or process); per project, the files of its first `stack init`, removed at the end.
const PASSPHRASE = randomBytes(16).toString("hex");
const STACK_TEMPLATES = new Map<string, string>();
const templateCopies: string[] = [];
const removeTemplates = () => templateCopies.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true }));
const jestAfterAll = (globalThis as { afterAll?: (fn: () => void) => void }).afterAll;
if (jestAfterAll) jestAfterAll(removeTemplates);
else process.once("exit", removeTemplates);

/** A stack of one project on a fresh file:// backend. */
export class CliStack {
    readonly project: Project;
    /** The stack's name; `renameStack` changes it. */
    stack = "dev";
    /** Every command's output (stdout and stderr), in order. */
    readonly log: string[] = [];
    readonly backendDir: string;
    readonly home: string;
    env: NodeJS.ProcessEnv;
    private readonly passphrase: string;
    private running?: ChildProcess;

    private constructor(
        readonly workDir: string,
        options: CliStackOptions,
    ) {
        this.project = createProject(options.programDir, workDir, options.installed, options.pulumiSdk);
        if (resolve(options.programDir).startsWith(TEST_PROGRAMS)) asJavaScript(this.project.dir);
        this.backendDir = join(workDir, "backend");
        this.home = join(workDir, "pulumi-home");
        mkdirSync(this.backendDir, { recursive: true });
        mkdirSync(this.home, { recursive: true });
        this.env = { ...options.env };
        this.passphrase = options.checkoutOf?.passphrase ?? PASSPHRASE;
    }

    static async create(options: CliStackOptions): Promise<CliStack> {
        const stack = new CliStack(mkdtempSync(join(tmpdir(), "edis-cli-")), options);
        const other = options.checkoutOf;
        if (other) copyFileSync(join(other.project.dir, `Pulumi.${other.stack}.yaml`), join(stack.project.dir, `Pulumi.${stack.stack}.yaml`));
        else await stack.init();
        await stack.setConfig(options.config ?? {}, options.secretKeys ?? []);
        return stack;
    }

    // `stack init` runs once per project per test file; later stacks copy its files (half a second less) and, selected
    // nowhere, are named by every command. A stack file already there, or another backend, gets a real `stack init`.
    private async init(): Promise<void> {
        const stackFile = join(this.project.dir, `Pulumi.${this.stack}.yaml`);
        const copyable = !this.env.PULUMI_BACKEND_URL && !existsSync(stackFile);
        const template = copyable ? STACK_TEMPLATES.get(this.project.name) : undefined;
        if (template) {
            cpSync(join(template, "backend"), this.backendDir, { recursive: true });
            copyFileSync(join(template, "stack.yaml"), stackFile);
            return;
        }
        ok(await this.run(["stack", "init"]));
        if (!copyable) return;
        const copy = mkdtempSync(join(tmpdir(), "edis-stack-template-"));
        templateCopies.push(copy);
        cpSync(this.backendDir, join(copy, "backend"), { recursive: true });
        copyFileSync(stackFile, join(copy, "stack.yaml"));
        STACK_TEMPLATES.set(this.project.name, copy);
    }

    /** The environment of every command: offline, this stack's home and backend, the pinned CLI first on the PATH. */
    private environment(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
        const base = Object.fromEntries(Object.entries(withoutCi(process.env)).filter(([k]) => !k.startsWith("PULUMI_") && !k.startsWith("EDIS_")));
        return {
            ...base,
            PATH: `${pulumiBinDir()}:${process.env.PATH}`,
            PULUMI_HOME: this.home,
            PULUMI_BACKEND_URL: `file://${this.backendDir}`,
            PULUMI_CONFIG_PASSPHRASE: this.passphrase,
            PULUMI_SKIP_UPDATE_CHECK: "true",
            PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
            PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
            // Makes `--event-log` available (as the Automation API does): the engine's own record of every step.
            PULUMI_DEBUG_COMMANDS: "true",
            // Type checking is the user's tsc's job (test/userProject); the engine's behaviour is what is tested here.
            PULUMI_NODEJS_TRANSPILE_ONLY: "true",
            ...this.env,
            ...extra,
        };
    }

    async setConfig(config: Record<string, string>, secretKeys: string[] = []): Promise<void> {
        const args = ["config", "set-all"];
        for (const [k, v] of Object.entries(config)) args.push(secretKeys.includes(k) ? "--secret" : "--plaintext", `${k}=${v}`);
        if (args.length > 2) ok(await this.run(args));
    }

    /** `pulumi stack rename <to>`: the engine rewrites every URN of the state; the config file moves with it. */
    async renameStack(to: string): Promise<void> {
        ok(await this.run(["stack", "rename", to]));
        this.stack = to;
    }

    /** `pulumi stack rm --force` (state gone, servers left running, config kept), then `pulumi stack init` of the same name. */
    async removeAndInitAgain(): Promise<void> {
        ok(await this.run(["stack", "rm", "--force", "--yes", "--preserve-config"]));
        ok(await this.run(["stack", "init"]));
    }

    /** Sets `options: refresh: always` in the project's Pulumi.yaml, as every example does. */
    refreshAlways(): void {
        appendFileSync(join(this.project.dir, "Pulumi.yaml"), "options:\n  refresh: always\n");
    }

    /** Runs `pulumi <args> --stack <stack> --non-interactive` in the project directory (no --stack for a command of no stack: `plugin`). */
    run(args: string[], options: { env?: NodeJS.ProcessEnv; events?: boolean } = {}): Promise<CliResult> {
        // `pulumi stack init` takes the stack as --stack too.
        const eventLog = options.events ? join(this.workDir, `events-${Date.now()}-${randomBytes(3).toString("hex")}.jsonl`) : undefined;
        const stack = args[0] === "plugin" ? [] : ["--stack", this.stack];
        const full = [...args, ...stack, "--non-interactive", ...(eventLog ? ["--event-log", eventLog] : [])];
        const started = Date.now();
        return new Promise((resolve, reject) => {
            const child = spawn(join(pulumiBinDir(), "pulumi"), full, { cwd: this.project.dir, env: this.environment(options.env), stdio: ["ignore", "pipe", "pipe"], detached: true });
            this.running = child;
            let stdout = "";
            let output = "";
            child.stdout.on("data", (c: Buffer) => ((stdout += c), (output += c)));
            child.stderr.on("data", (c: Buffer) => (output += c));
            child.on("error", reject);
            child.on("close", (code, signal) => {
                this.running = undefined;
                this.log.push(output);
                const events = eventLog ? readEvents(eventLog) : [];
                const summary = events.find((e) => e.summaryEvent)?.summaryEvent;
                resolve({
                    command: `pulumi ${args.join(" ")}`,
                    code,
                    signal,
                    stdout,
                    output,
                    events,
                    ops: opsOf(events),
                    changes: summary?.resourceChanges,
                    durationMs: Date.now() - started,
                });
            });
        });
    }

    up(flags: string[] = [], options: { env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
        return this.run(["up", "--yes", "--skip-preview", ...flags], { ...options, events: true });
    }

    preview(flags: string[] = [], options: { env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
        return this.run(["preview", "--diff", ...flags], { ...options, events: true });
    }

    refresh(flags: string[] = [], options: { env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
        return this.run(["refresh", "--yes", "--skip-preview", ...flags], { ...options, events: true });
    }

    destroy(flags: string[] = [], options: { env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
        return this.run(["destroy", "--yes", "--skip-preview", ...flags], { ...options, events: true });
    }

    /** `pulumi stack export` as text (secrets stay ciphertext, as in the backend). */
    async exportText(): Promise<string> {
        return ok(await this.run(["stack", "export"])).stdout;
    }

    /** The engine's checkpoint; on this stack's own file:// backend, read from the file without a process. */
    async deployment(): Promise<Deployment> {
        if (this.env.PULUMI_BACKEND_URL) return (JSON.parse(await this.exportText()) as { deployment: Deployment }).deployment;
        // A stack renamed into another project is named organization/<project>/<stack>.
        const [project, stack] = this.stack.includes("/") ? this.stack.split("/").slice(1) : [this.project.name, this.stack];
        const file = join(this.backendDir, ".pulumi", "stacks", project, `${stack}.json`);
        return (JSON.parse(readFileSync(file, "utf8")) as { checkpoint: { latest?: Deployment } }).checkpoint.latest ?? {};
    }

    /** The checkpoint's custom resources of pulumi-edis, by name (providers and the stack left out). */
    async resources(): Promise<Record<string, CheckpointResource>> {
        const d = await this.deployment();
        return Object.fromEntries((d.resources ?? []).filter((r) => r.custom && !r.type.startsWith("pulumi:providers:")).map((r) => [nameOf(r.urn), r]));
    }

    /** Stack outputs, secrets shown as `[secret]`. */
    async outputs(): Promise<Record<string, unknown>> {
        return JSON.parse(ok(await this.run(["stack", "output", "--json"])).stdout) as Record<string, unknown>;
    }

    /** Kills the running command's whole process group at once, as a cancelled CI job or a lost runner does. */
    kill(signal: NodeJS.Signals = "SIGKILL"): void {
        if (this.running?.pid) process.kill(-this.running.pid, signal);
    }

    /** Kills this stack's provider hosts alone, as an OOM kill does: the engine lives on and sees calls fail. */
    killProviderHosts(): number {
        return killIn(this.workDir, (command) => /dynamic-provider|pulumi-resource-/.test(command));
    }

    /** Kills every process of this stack (pulumi's group, hosts in their own groups), as a cancelled CI job does. */
    crash(): number {
        try {
            this.kill();
        } catch {
            // the group is gone already
        }
        return killIn(this.workDir, () => true);
    }

    /** Every file of this stack's backend: checkpoints, history, backups. */
    backendText(): string {
        return execFileSync("bash", ["-c", `find "${this.backendDir}" -type f -print0 | xargs -0 cat`], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
    }

    dispose(): void {
        this.crash();
        rmSync(this.workDir, { recursive: true, force: true });
    }
}

export interface CheckpointResource {
    urn: string;
    custom: boolean;
    id?: string;
    type: string;
    inputs?: Record<string, unknown>;
    outputs?: Record<string, unknown>;
    initErrors?: string[];
    delete?: boolean;
}

export interface Deployment {
    resources?: CheckpointResource[];
    pending_operations?: Array<{ resource: CheckpointResource; type: string }>;
}

/** A command that must have succeeded; fails the test with its output otherwise. */
export function ok(r: CliResult): CliResult {
    if (r.code !== 0) throw new Error(`${r.command} exited ${r.code}:\n${r.output}`);
    return r;
}

export function nameOf(urn: string): string {
    return urn.split("::").pop()!;
}

function readEvents(path: string): EngineEvent[] {
    if (!existsSync(path)) return [];
    return readFileSync(path, "utf8")
        .split("\n")
        .filter((l) => l.trim())
        .flatMap((l) => {
            try {
                return [JSON.parse(l) as EngineEvent];
            } catch {
                return []; // a killed CLI may leave half a line
            }
        });
}

/** Each custom resource's operations by name, in the engine's order; a failed one ends in "!". */
function opsOf(events: EngineEvent[]): Record<string, string[]> {
    const ops: Record<string, string[]> = {};
    const fail = (urn: string, op?: string) => {
        const list = ops[nameOf(urn)] ?? [];
        for (let i = list.length - 1; i >= 0; i--) {
            if (op !== undefined && list[i].replace(/!$/, "") !== op) continue;
            list[i] = list[i].replace(/!?$/, "!");
            return;
        }
    };
    for (const e of events) {
        const pre = e.resourcePreEvent?.metadata;
        if (pre && !pre.type.startsWith("pulumi:providers:") && pre.type !== "pulumi:pulumi:Stack") (ops[nameOf(pre.urn)] ??= []).push(pre.op);
        if (e.resOpFailedEvent) fail(e.resOpFailedEvent.metadata.urn, e.resOpFailedEvent.metadata.op);
        // A preview reports a failed step only as an error diagnostic on the resource.
        if (e.diagnosticEvent?.urn && e.diagnosticEvent.severity === "error") fail(e.diagnosticEvent.urn);
    }
    return ops;
}

// Repeats until a pass finds none (a late-killed parent may spawn a child). The engine starts provider hosts in their
// own process groups, so a SIGKILLed pulumi leaves them running, as for a user; `dispose` stops them all.
function killIn(workDir: string, which: (command: string) => boolean): number {
    let killed = 0;
    for (let found = true; found; ) {
        found = false;
        for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
            try {
                if (!readlinkSync(`/proc/${pid}/cwd`).startsWith(workDir) || !which(readFileSync(`/proc/${pid}/cmdline`, "utf8"))) continue;
                process.kill(Number(pid), "SIGKILL");
                killed++;
                found = true;
            } catch {
                // gone meanwhile, or not ours
            }
        }
    }
    return killed;
}

/** The first of `secrets` that `text` holds, as it is or in any form of the echo corpus (test/support/echoes.ts), any case. */
export function credentialIn(text: string, secrets: string[]): string | undefined {
    const lower = text.toLowerCase();
    return secrets.find((secret) => [secret, ...Object.values(ECHOES).map((echo) => echo(secret))].some((form) => lower.includes(form.toLowerCase())));
}
