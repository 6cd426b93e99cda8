/**
 * Runs one Pulumi program in its own process, as the language host would, under `pulumi.runtime.setMocks`.
 * Every resource the program registers is sent to the parent (the harness engine), which performs the
 * real step through the provider host and answers with the id and outputs: the program sees exactly what it
 * would under `pulumi up`, including failures.
 *
 * Started by engine.ts with `fork`; takes its job from the PULUMI_HARNESS_JOB environment variable.
 */
import { readFileSync } from "node:fs";
import Module from "node:module";
import { join } from "node:path";
import { SECRET_KEY, SECRET_SIG, UNKNOWN, transpileProgram } from "./workspace";

export interface ProgramJob {
    projectDir: string;
    /** The program's entry file, relative to projectDir. */
    main: string;
    project: string;
    stack: string;
    preview: boolean;
    config: Record<string, string>;
    secretKeys: string[];
}

export type RunnerMessage =
    | {
          kind: "register";
          reqId: number;
          type: string;
          name: string;
          inputs: Record<string, unknown>;
          custom: boolean;
          /** The resource options the engine acts on in a diff (setMocks does not pass them to newResource). */
          ignoreChanges: string[];
          /** URNs of the resources this one depends on (its inputs' resources and dependsOn): the engine deletes it first. */
          dependencies: string[];
          /** The parent's URN as the mock monitor names it: the engine's URN of a resource carries its parents' types. */
          parent?: string;
          /** The resource's aliases by name (the only form the harness models), matched against the prior state's URNs. */
          aliases?: Array<{ name?: string }>;
      }
    | { kind: "done"; outputs?: Record<string, unknown>; error?: string };

export type EngineAnswer = { kind: "registered"; reqId: number; id?: string; state?: Record<string, unknown>; error?: string };

function unwrapSecrets(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(unwrapSecrets);
    if (!value || typeof value !== "object") return value;
    const v = value as Record<string, unknown>;
    if (v[SECRET_KEY] === SECRET_SIG) return unwrapSecrets(v.value);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unwrapSecrets(x)]));
}

/** Lets `require` load TypeScript programs, as Pulumi's ts-node does (transpile only, no type check). */
function registerTypeScript(): void {
    const extensions = (Module as unknown as { _extensions: Record<string, Function> })._extensions;
    extensions[".ts"] = (module: any, filename: string) => module._compile(transpileProgram(readFileSync(filename, "utf8"), filename), filename);
}

async function main(): Promise<void> {
    const job = JSON.parse(process.env.PULUMI_HARNESS_JOB!) as ProgramJob;
    process.chdir(job.projectDir);
    registerTypeScript();

    // The program's own @pulumi/pulumi, resolved from the project as the program will resolve it.
    const pulumi = require(require.resolve("@pulumi/pulumi", { paths: [job.projectDir] })) as typeof import("@pulumi/pulumi");

    type Options = Pick<Extract<RunnerMessage, { kind: "register" }>, "ignoreChanges" | "dependencies" | "parent" | "aliases">;
    // Per name, in registration order: two components may each register a resource of the same name.
    const options = new Map<string, Options[]>();
    let nextReq = 0;
    const waiting = new Map<number, (answer: EngineAnswer) => void>();
    process.on("message", (answer: EngineAnswer) => waiting.get(answer.reqId)?.(answer));
    const ask = (msg: Omit<Extract<RunnerMessage, { kind: "register" }>, "reqId">) =>
        new Promise<EngineAnswer>((resolve) => {
            const reqId = ++nextReq;
            waiting.set(reqId, resolve);
            process.send!({ ...msg, reqId });
        });

    await pulumi.runtime.setMocks(
        {
            async newResource(args) {
                if (args.id) throw new Error(`${args.name}: the harness does not model Resource.get; run this program with the real CLI`);
                const answer = await ask({
                    kind: "register",
                    type: args.type,
                    name: args.name,
                    // The engine strips secrets before a provider that does not accept them (the dynamic host) sees them.
                    inputs: unwrapSecrets(args.inputs) as Record<string, unknown>,
                    custom: !!args.custom,
                    ...(options.get(`${args.type}::${args.name}`)?.shift() ?? { ignoreChanges: [], dependencies: [] }),
                });
                if (answer.error) throw new Error(answer.error);
                return { id: answer.id, state: answer.state ?? {} };
            },
            async call() {
                throw new Error("this harness does not serve invokes; pulumi-edis lookups call EDIS directly");
            },
        },
        job.project,
        job.stack,
        job.preview,
    );
    pulumi.runtime.setAllConfig(job.config, job.secretKeys);
    // The mock monitor hands newResource no resource options; read those the harness engine acts on from the request.
    const monitor = (pulumi.runtime as unknown as { getMonitor(): { registerResource(req: any, cb: unknown): unknown } }).getMonitor();
    const register = monitor.registerResource.bind(monitor);
    monitor.registerResource = (req: any, cb: unknown) => {
        const key = `${req.getType()}::${req.getName()}`;
        if (req.getDeletebeforereplace()) throw new Error(`${req.getName()}: the harness does not model deleteBeforeReplace; run this program with the real CLI`);
        options.set(key, [
            ...(options.get(key) ?? []),
            {
                ignoreChanges: req.getIgnorechangesList(),
                dependencies: req.getDependenciesList(),
                parent: req.getParent() || undefined,
                aliases: req.getAliasesList().map((a: any) => {
                    const spec = a.getSpec();
                    const otherParent = spec?.getNoparent() ? !!req.getParent() : !!spec?.getParenturn() && spec.getParenturn() !== req.getParent();
                    const other = (given: string, own: string) => !!given && given !== own;
                    const elsewhere = other(spec?.getType(), req.getType()) || other(spec?.getStack(), pulumi.getStack()) || other(spec?.getProject(), pulumi.getProject());
                    if (!spec || a.getUrn() || elsewhere || otherParent) {
                        throw new Error(`${req.getName()}: the harness models aliases by name only (same type, parent, stack and project); run this program with the real CLI`);
                    }
                    return { name: spec.getName() || undefined };
                }),
            },
        ]);
        return register(req, cb);
    };

    let outputs: Record<string, unknown> | undefined;
    let error: string | undefined;
    try {
        let exported: unknown;
        await pulumi.runtime.runInPulumiStack(async () => {
            const mod = require(join(job.projectDir, job.main));
            exported = typeof mod.default === "function" ? await mod.default() : mod;
            return exported;
        });
        await pulumi.runtime.disconnect();
        // With unknowns: a preview shows what it cannot know yet instead of dropping every output.
        outputs = await (pulumi.output(exported) as any).promise(true);
    } catch (e) {
        error = e instanceof Error ? e.message : String(e);
    }
    process.send!({ kind: "done", outputs: plain(outputs), error } satisfies RunnerMessage, () => process.exit(0));
}

/** Stack outputs as JSON: secrets are kept out of the harness's output, as `pulumi stack output` hides them. */
function plain(value: unknown): Record<string, unknown> | undefined {
    if (value === undefined) return undefined;
    return JSON.parse(
        JSON.stringify(value, (k, v) => (k === "__esModule" ? undefined : v === UNKNOWN ? "<unknown>" : typeof v === "bigint" ? String(v) : v)),
    );
}

process.on("unhandledRejection", (e) => {
    // A failed resource rejects its outputs; the engine already has the error, so the program just ends.
    process.send?.({ kind: "done", error: e instanceof Error ? e.message : String(e) } satisfies RunnerMessage, () => process.exit(0));
});

void main();
