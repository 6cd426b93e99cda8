/**
 * The harness calibrated against the engine: the same scenarios run through the engine-path harness
 * (test/harness) and through the real `pulumi` CLI, each against a fresh simulator, and compared command by
 * command: whether it succeeded, each resource's steps in the engine's order (failed ones marked), the
 * resulting state (ids, whether KVM ids are known, init errors, pending creates) and the paid writes EDIS
 * received. Where they differ, the harness is wrong (DESIGN.md section 7): this test fails until it is fixed.
 */
import { EdisSimulator } from "../../simulator/server";
import { OperationResult } from "../harness";
import { declareServers, simulatorAndStack } from "../support/sim";
import { CliResult, nameOf } from "./pulumi";
import { SERVERS, cliStack, declare, expectNoCredentials, paidWrites } from "./support";

/** What both ways of running a command must agree on. */
interface Observed {
    ok: boolean;
    /** Each resource's steps in order: refresh, create, same, update, replace, delete, read; failed ones end in "!". */
    steps: Record<string, string[]>;
    paid: string[];
    /** Each resource's service, named by what EDIS holds for its id (host name and plan: ids depend on the order of parallel creates). */
    state: Record<string, { service: string; kvmId: boolean; initErrors: boolean; planId?: unknown; locationId?: unknown }>;
    pendingCreates: number;
    /** The CLI's output (the harness has none): asserted by a scenario, never compared. */
    output?: string;
}

interface Runner {
    sim: EdisSimulator;
    run(command: "up" | "preview" | "refresh" | "destroy", flags?: string[]): Promise<Observed>;
    declare(servers: Record<string, Record<string, unknown>>, options?: Record<string, object>): Promise<void>;
    setConfig(key: string, value: string, secret?: boolean): Promise<void>;
    refreshAlways(): void;
    dispose(): Promise<void>;
}

/**
 * The CLI's steps as the harness names them: a replacement is one "replace" step (the engine's
 * create-replacement; its "replace" step only swaps the two halves in state) and the old half's "delete".
 */
function cliSteps(r: CliResult): Record<string, string[]> {
    const renamed = (op: string) => op.replace(/^delete-replaced/, "delete").replace(/^create-replacement/, "replace");
    const steps = Object.entries(r.ops).map(([name, ops]) => [name, ops.filter((op) => !/^replace!?$/.test(op)).map(renamed)] as const);
    return Object.fromEntries(steps.filter(([, ops]) => ops.length > 0));
}

function harnessSteps(r: OperationResult): Record<string, string[]> {
    const steps: Record<string, string[]> = {};
    for (const s of r.steps) (steps[s.name] ??= []).push(s.error ? `${s.op}!` : s.op);
    return steps;
}

async function cliRunner(): Promise<Runner> {
    const f = await cliStack(SERVERS, { sim: { unpaidInvoices: true } });
    const { sim, stack } = f;
    return {
        sim,
        async run(command, flags = []) {
            const r = await stack[command](flags);
            const d = await stack.deployment();
            const resources = (d.resources ?? []).filter((x) => x.custom && !x.type.startsWith("pulumi:providers:") && !x.delete);
            return {
                ok: r.code === 0,
                steps: cliSteps(r),
                paid: paidWrites(sim),
                state: Object.fromEntries(resources.map((x) => [nameOf(x.urn), observedState(sim, x.id!, x.outputs ?? {}, x.initErrors)])),
                pendingCreates: (d.pending_operations ?? []).length,
                output: r.output,
            };
        },
        declare: (servers, options) => declare(stack, servers, options),
        setConfig: (key, value, secret = false) => stack.setConfig({ [key]: value }, secret ? [key] : []),
        refreshAlways: () => stack.refreshAlways(),
        async dispose() {
            try {
                await expectNoCredentials(f);
            } finally {
                await f.dispose();
            }
        },
    };
}

async function harnessRunner(): Promise<Runner> {
    const { sim, stack } = await simulatorAndStack(SERVERS, { unpaidInvoices: true });
    return {
        sim,
        async run(command, flags = []) {
            const refresh = flags.includes("--refresh=false") ? false : flags.includes("--refresh") ? true : undefined;
            const r = command === "refresh" ? await stack.refresh() : await stack[command]({ refresh });
            const state = stack.state();
            return {
                ok: r.ok,
                steps: harnessSteps(r),
                paid: paidWrites(sim),
                state: Object.fromEntries(state.resources.filter((x) => !x.pendingDelete).map((x) => [x.name, observedState(sim, x.id, x.outputs, x.initErrors)])),
                pendingCreates: state.pendingCreates.length,
            };
        },
        declare: async (servers, options) => declareServers(stack, servers, options),
        setConfig: async (key, value, secret) => stack.setConfig(key, value, secret),
        refreshAlways: () => (stack.project.refreshAlways = true),
        async dispose() {
            stack.dispose();
            await sim.stop();
        },
    };
}

/** JSON with object keys sorted: resources step and land in state in the order their parallel steps finish. */
function canonical(value: unknown): string {
    return JSON.stringify(value, (_k, v) => (v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => x.localeCompare(y))) : v));
}

/** A resource in state as both compare it: its service as EDIS knows it (`host name@plan`), and what its outputs hold. */
function observedState(sim: EdisSimulator, id: string, outputs: Record<string, unknown>, initErrors: string[] = []): Observed["state"][string] {
    const service = sim.account.state.services.find((s) => String(s.serviceId) === id);
    return { service: service ? `${service.hostname}@${service.pid}` : `unknown ${id}`, kvmId: typeof outputs.kvmId === "string", initErrors: initErrors.length > 0, planId: outputs.planId, locationId: outputs.locationId };
}

/** Runs one scenario through both and compares after every command. */
async function calibrate(scenario: (r: Runner, step: (label: string, o: Observed) => Observed) => Promise<void>): Promise<void> {
    const seen: Record<"cli" | "harness", Array<[string, Observed]>> = { cli: [], harness: [] };
    for (const [name, make] of [["cli", cliRunner], ["harness", harnessRunner]] as const) {
        const runner = await make();
        try {
            await scenario(runner, (label, o) => {
                seen[name].push([label, o]);
                return o;
            });
        } finally {
            await runner.dispose();
        }
    }
    expect(seen.harness.map(([l]) => l)).toEqual(seen.cli.map(([l]) => l));
    // Each difference as `command: field: cli=... harness=...`, field by field.
    const differences = seen.cli.flatMap(([command, cli], i) => {
        const harness = seen.harness[i][1];
        return (Object.keys(cli) as Array<keyof Observed>)
            .filter((k) => k !== "output" && canonical(cli[k]) !== canonical(harness[k]))
            .map((k) => `${command}: ${k}: cli=${canonical(cli[k])} harness=${canonical(harness[k])}`);
    });
    expect(differences).toEqual([]);
}

const a = { planId: 101, osId: 1012, hostname: "a.example.com" };
const b = { planId: 101, osId: 1012, hostname: "b.example.com" };

/** Pays every open invoice of the simulated account, as the user does in the client area. */
function payAll(sim: EdisSimulator): void {
    for (const invoice of sim.account.state.invoices) sim.account.payInvoice(invoice.invoiceId);
}

/** Each calibration runs a whole lifecycle twice (the real CLI, then the harness): minutes on a loaded 2-core machine, so the bound is
 * only for a hung command. */
const CALIBRATION_TIMEOUT_MS = 1_200_000;

test("calibration: an unpaid create finished by the next up without a second order, a no-change up, an in-place upgrade, a replacement (and replaceOnChanges doing nothing), a planned and a real delete, destroy", async () => {
    await calibrate(async (r, step) => {
        await r.declare({ a, b });
        // An unpaid invoice stops each create: the server is in state with its service id and an init error, no KVM id.
        const unpaid = step("up (unpaid)", await r.run("up"));
        expect(unpaid).toMatchObject({ ok: false, paid: ["add/order", "add/order"], state: { a: { kvmId: false, initErrors: true } } });
        if (unpaid.output !== undefined) expect(unpaid.output).toContain("is unpaid");
        payAll(r.sim);
        await new Promise((res) => setTimeout(res, 400));
        // Once paid, the next up finishes each create by an update, without a second order.
        const resumed = step("up (resumes)", await r.run("up"));
        expect(resumed).toMatchObject({ ok: true, steps: { a: ["update"] }, paid: unpaid.paid, state: { a: { kvmId: true, initErrors: false } } });
        if (resumed.output !== undefined) expect(resumed.output).toContain("not ordering again");
        step("up (nothing changed)", await r.run("up"));
        // Both ways must also show the engine's facts. replaceOnChanges applies only to keys the provider's Diff
        // reports, and the dynamic host reports none: the plan change is an in-place upgrade, no second order.
        await r.declare({ a: { ...a, planId: 102 }, b }, { a: { replaceOnChanges: ["planId"] } });
        const inPlace = step("preview (replaceOnChanges)", await r.run("preview"));
        expect(inPlace.steps.a).toEqual(["update"]);
        const upgraded = step("up (replaceOnChanges: an upgrade)", await r.run("up"));
        expect(upgraded).toMatchObject({ ok: true, paid: ["add/order", "add/order", "add/upgrade"] });
        // The input the provider's Diff honours: a new server at the new plan's location, then the old one cancelled.
        await r.declare({ a: { ...a, planId: 201, replaceOnPlanChange: true }, b });
        const planned = step("preview (replaceOnPlanChange)", await r.run("preview"));
        expect(planned).toMatchObject({ steps: { a: ["replace", "delete"] }, paid: upgraded.paid });
        step("up (replaceOnPlanChange, unpaid)", await r.run("up"));
        payAll(r.sim);
        await new Promise((res) => setTimeout(res, 400));
        const replaced = step("up (replacement resumes)", await r.run("up"));
        // One new order, and the cancel of the old server, not the new one.
        expect(replaced).toMatchObject({ ok: true, paid: [...upgraded.paid, "add/order", "cancel/product"] });
        const services = r.sim.account.state.services.filter((s) => s.hostname === a.hostname);
        expect(services.map((s) => s.pid)).toEqual([102, 201]);
        expect(r.sim.calls("cancel/product").map((c) => c.fields.serviceid)).toEqual([String(services[0].serviceId)]);
        expect(replaced.state.a).toMatchObject({ service: `${a.hostname}@201`, planId: 201, locationId: 2 });
        // The engine's fact: the replacement's new half, stopped by its unpaid invoice, is finished by an update; then the
        // old half, kept until now, is deleted.
        expect(replaced.steps.a).toEqual(["update", "delete"]);
        const settled = step("preview (replaced)", await r.run("preview"));
        expect(settled.ok).toBe(true);
        expect(Object.values(settled.steps).flat().filter((op) => op !== "same")).toEqual([]);
        await r.declare({ a: { ...a, planId: 201, replaceOnPlanChange: true } });
        step("preview (b dropped)", await r.run("preview"));
        step("up (b dropped)", await r.run("up"));
        step("destroy", await r.run("destroy"));
    });
}, CALIBRATION_TIMEOUT_MS);

test("calibration: with refresh always, an unpaid create previews as unfinished and is finished after payment; refresh always clears init errors; a failing refresh (a changed edis:password) stops up, preview and destroy, each saying once how to record the new one; refresh and destroy use the recorded config", async () => {
    await calibrate(async (r, step) => {
        r.refreshAlways();
        await r.declare({ a });
        step("up (unpaid)", await r.run("up"));
        // Until it is paid, every preview shows it unfinished (an update).
        expect(step("preview (unfinished)", await r.run("preview")).steps.a).toEqual(["refresh", "update"]);
        payAll(r.sim);
        const resumed = step("up (refresh, then resume)", await r.run("up"));
        expect(resumed).toMatchObject({ ok: true, paid: ["add/order"], state: { a: { kvmId: true, initErrors: false } } });
        // The password is changed at EDIS and in the stack config, as a user rotating it does.
        r.sim.account.setPassword("rotated-Passw0rd");
        await r.setConfig("edis:password", "rotated-Passw0rd", true);
        const refused = [
            step("refresh (recorded password)", await r.run("refresh")),
            step("preview (refresh fails)", await r.run("preview")),
            step("destroy (refresh fails)", await r.run("destroy")),
        ];
        // The destroy's cancel/product went out with the recorded password and was refused: nothing was cancelled.
        expect(r.sim.summary()).toMatchObject({ orders: 1, cancellations: 0 });
        for (const { output } of refused.filter((o) => o.output !== undefined)) {
            expect(output).toContain("the e-mail or password was refused");
            expect(output).toContain("record them with one `pulumi up --refresh=false`");
            expect(output).not.toContain("rotated-Passw0rd");
            // Said once on any line: no message repeats itself inside another.
            expect(output!.split("\n").filter((line) => line.split("the e-mail or password was refused").length > 2)).toEqual([]);
        }
        // Following the error: an up without refresh records the new config (nothing at EDIS changes), then all works.
        expect(step("up --refresh=false (records the config)", await r.run("up", ["--refresh=false"])).steps.a).toEqual(["same"]);
        step("refresh", await r.run("refresh"));
        step("destroy", await r.run("destroy"));
        expect(r.sim.summary()).toMatchObject({ orders: 1, cancellations: 1 });
    });
}, CALIBRATION_TIMEOUT_MS);
