/**
 * Drift inspection with a plain `pulumi preview`, as a scheduled CI job runs it: examples/basic sets
 * `options: refresh: always`, so the CLI (and the harness, which models it) refreshes before the preview.
 * Everything goes through the real dynamic-provider host; the simulator is changed behind Pulumi's back.
 */
import { join } from "node:path";
import { OperationResult, TestStack } from "./harness";
import { EdisSimulator } from "../simulator/server";
import { stackConfigFor, startSimulator } from "./support/sim";

const EXAMPLE = join(__dirname, "..", "examples", "basic");
let sim: EdisSimulator;
let stack: TestStack;

beforeEach(async () => {
    sim = await startSimulator({ provisioningDelayMs: 200 });
    stack = TestStack.create({ programDir: EXAMPLE, config: stackConfigFor(sim), secretKeys: ["edis:email", "edis:password"] });
    const up = await stack.up();
    expect(up.errors).toEqual([]);
    sim.clearLog();
});
afterEach(async () => {
    stack.dispose();
    await sim.stop();
});

/** What `pulumi preview` shows, resource by resource: the refresh's result, then the plan's step. */
function shown(r: OperationResult): string[] {
    return r.steps.map((s) => `${s.name} ${s.op}${s.result ? ` ${s.result}` : ""}${s.changed?.length ? ` (${s.changed.join(", ")})` : ""}`);
}

/** Calls the provider host made (the program's own lookups announce another agent). */
function providerCalls(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const e of sim.log.filter((x) => !x.userAgent.includes("lookup"))) counts[e.endpoint] = (counts[e.endpoint] ?? 0) + 1;
    return counts;
}

const web = () => sim.account.state.services[0];

test("nothing drifted: a plain preview refreshes for one get/auth (power is not managed, so not read) and reports no change, however often it runs", async () => {
    const before = stack.stateText();
    for (let i = 0; i < 2; i++) {
        const preview = await stack.preview();
        expect(preview.errors).toEqual([]);
        // The session's valid_until and signature change on every read; neither is an output or compared.
        expect(shown(preview)).toEqual(["web refresh same", "web same"]);
        expect(preview.hasChanges).toBe(false);
    }
    expect(providerCalls()).toEqual({ "get/auth": 2 });
    expect(stack.stateText()).toBe(before);
});

test("a server suspended behind Pulumi's back: the preview shows it as an update, which fails --expect-no-changes", async () => {
    sim.account.setSuspended(web().serviceId, true);
    const preview = await stack.preview();
    expect(preview.errors).toEqual([]);
    expect(shown(preview)).toEqual(["web refresh update (suspended)", "web update"]);
    expect(preview.drift).toEqual({ web: { suspended: { before: false, after: true } } });
    expect(preview.hasChanges).toBe(true);
    expect(preview.hostLog.join("\n")).toContain("web-1.example.com (service " + web().serviceId + ") is suspended at EDIS");
    expect(stack.resource("web")!.outputs.suspended).toBe(false);
    expect(providerCalls()).toEqual({ "get/auth": 1 });
});

test("a server cancelled behind Pulumi's back: the preview shows it gone and the re-order an up would make; only up orders", async () => {
    const cancelled = web();
    sim.account.cancelService(cancelled, "Immediate");
    const preview = await stack.preview();
    expect(preview.errors).toEqual([]);
    expect(shown(preview)).toEqual(["web refresh delete ((gone))", "web create"]);
    expect(preview.hasChanges).toBe(true);
    expect(sim.calls("add/order")).toEqual([]);
    expect(stack.resource("web")!.id).toBe(String(cancelled.serviceId)); // a preview persists nothing

    const up = await stack.up();
    expect(up.errors).toEqual([]);
    expect(shown(up)).toEqual(["web refresh delete ((gone))", "web create"]);
    expect(sim.calls("add/order")).toHaveLength(1);
    expect(stack.resource("web")!.id).not.toBe(String(cancelled.serviceId));
    const quiet = await stack.preview();
    expect([shown(quiet), quiet.hasChanges]).toEqual([["web refresh same", "web same"], false]);
});
