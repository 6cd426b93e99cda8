// The engine's calls made in-process against one core: what the provider decides (test/cli has what the engine does).
import type * as pulumi from "@pulumi/pulumi";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Core } from "../../provider/runtime";
import { kvmServerOn } from "../../provider/kvm/provider";
import { EdisSimulator, SimulatorOptions } from "../../simulator/server";
import { stackConfigFor, startSimulator } from "./sim";

type Provider = Required<Pick<pulumi.dynamic.ResourceProvider, "check" | "diff" | "create" | "read" | "update" | "delete">>;

/** What the engine keeps of a resource between operations. */
export interface Held {
    id: string;
    inputs: Record<string, unknown>;
    outs: Record<string, unknown>;
    /** A create that failed after making the resource (an init error): the engine keeps it and updates it next time. */
    initError?: string;
}

export type Step = "create" | "same" | "update" | "replace";

export class InProcess {
    readonly core = new Core();
    /** Every line the provider logged, every error it threw and every state it returned: where a secret must never appear. */
    readonly text: string[] = [];

    constructor(config: Record<string, string>) {
        this.core.configure({ config: { get: (key) => config[key] } });
        this.core.setLogSink((line) => this.text.push(line));
    }

    get log(): string {
        return this.text.join("\n");
    }

    /** check, then create, or diff and update or replace (create-before-delete): the step and what is held after it. */
    async up(p: Provider, held: Held | undefined, news: Record<string, unknown>, name = "web"): Promise<{ step: Step; held: Held }> {
        return this.noted(async () => this.apply(p, held, await this.check(p, held, news, name)));
    }

    // Checks one at a time, then creates, updates and deletes all at once, as the engine runs independent steps. Errors
    // are collected as the CLI lists them; a failed step keeps what was held, an init error is held with it.
    async upAll(p: Provider, held: Record<string, Held>, declared: Record<string, Record<string, unknown>>): Promise<{ held: Record<string, Held>; errors: string[] }> {
        const errors: string[] = [];
        const after: Record<string, Held> = {};
        const checked: Record<string, Record<string, unknown>> = {};
        for (const [name, news] of Object.entries(declared)) {
            try {
                checked[name] = await this.check(p, held[name], news, name);
            } catch (e) {
                errors.push((e as Error).message);
            }
        }
        const steps = Object.keys({ ...held, ...checked }).map(async (name) => {
            try {
                if (!checked[name] && !declared[name]) return void (await this.destroy(p, held[name]));
                if (!checked[name]) return void (after[name] = held[name]);
                after[name] = (await this.noted(() => this.apply(p, held[name], checked[name]))).held;
                if (after[name].initError && after[name] !== held[name]) errors.push(after[name].initError!);
            } catch (e) {
                errors.push((e as Error).message);
                if (held[name]) after[name] = held[name];
            }
        });
        await Promise.all(steps);
        return { held: after, errors };
    }

    /** Check's inputs; its failures as one error. The resource key is the URN the SDK and the plugin pass. */
    private async check(p: Provider, held: Held | undefined, news: Record<string, unknown>, name: string): Promise<Record<string, unknown>> {
        const given = { __resourceKey: held?.inputs.__resourceKey ?? `urn:pulumi:test::p::edis:test::${name}`, ...news };
        const { inputs = given, failures = [] } = await p.check(held?.inputs ?? {}, given);
        if (failures.length) throw new Error(failures.map((f) => f.reason).join("\n"));
        return inputs;
    }

    private async apply(p: Provider, held: Held | undefined, inputs: Record<string, unknown>): Promise<{ step: Step; held: Held }> {
        if (!held) return { step: "create", held: await this.create(p, inputs) };
        const diff = await p.diff(held.id, held.outs, inputs);
        if (!diff.changes && !held.initError) return { step: "same", held };
        if (diff.replaces?.length) {
            // The new half is checked again without old inputs; the old half is deleted only once the new one exists.
            const { inputs: again = inputs, failures = [] } = await p.check({}, inputs);
            if (failures.length) throw new Error(failures.map((f) => f.reason).join("\n"));
            const next = await this.create(p, again);
            if (!next.initError) await p.delete(held.id, held.outs);
            return { step: "replace", held: next };
        }
        return { step: "update", held: await this.initFailureKept(inputs, async () => ({ id: held.id, ...(await p.update(held.id, held.outs, inputs)) })) };
    }

    /** Read: undefined when the provider says it is gone. */
    async refresh(p: Provider, held: Held): Promise<Held | undefined> {
        const read = await this.noted(() => p.read(held.id, held.outs));
        this.text.push(JSON.stringify(read.props ?? {}));
        return read.id ? { id: read.id, inputs: held.inputs, outs: read.props ?? {} } : undefined;
    }

    async destroy(p: Provider, held: Held): Promise<void> {
        await this.noted(() => p.delete(held.id, held.outs));
    }

    readonly failure = failureMessage;

    private create(p: Provider, inputs: Record<string, unknown>): Promise<Held> {
        return this.initFailureKept(inputs, () => p.create(inputs));
    }

    /** A create or update; one that fails with an id and outputs (an init error) is kept with them, as the engine keeps it. */
    private async initFailureKept(inputs: Record<string, unknown>, op: () => Promise<{ id: string; outs?: Record<string, unknown> }>): Promise<Held> {
        try {
            const { id, outs = {} } = await op();
            this.text.push(JSON.stringify(outs));
            return { id, inputs, outs };
        } catch (e) {
            const init = e as { id?: string; properties?: Record<string, unknown>; message: string };
            if (!init.id || !init.properties) throw e;
            this.text.push(init.message);
            return { id: init.id, inputs, outs: init.properties, initError: init.message };
        }
    }

    private async noted<T>(op: () => Promise<T>): Promise<T> {
        try {
            return await op();
        } catch (e) {
            this.text.push((e as Error).message);
            throw e;
        }
    }
}

/** The message of the error an operation fails with; the test fails if it succeeds. */
export async function failureMessage(op: Promise<unknown>): Promise<string> {
    const outcome = await op.then(
        () => undefined,
        (e: Error) => e.message,
    );
    if (outcome === undefined) throw new Error("expected the operation to fail");
    return outcome;
}

/** A simulator, and a provider process on its own journal for each deployment (`next()`), as the engine starts one per command. */
export async function simulatorAndCore(options: SimulatorOptions = {}, config: Record<string, string> = {}): Promise<{ sim: EdisSimulator; next: () => InProcess; config: Record<string, string> }> {
    const sim = await startSimulator({ provisioningDelayMs: 100, ...options });
    const journal = `file://${mkdtempSync(join(tmpdir(), "edis-journal-"))}`;
    const all = { ...stackConfigFor(sim), "edis:journalUrl": journal, ...config };
    return { sim, next: () => new InProcess(all), config: all };
}

/** One `pulumi up` of a KvmServer in a new provider process of `next`: the step, what is held after it, and the deployment. */
export async function upServer(next: () => InProcess, held: Held | undefined, inputs: Record<string, unknown>): Promise<{ e: InProcess; held: Held; step: Step }> {
    const e = next();
    return { e, ...(await e.up(kvmServerOn(e.core), held, inputs)) };
}

