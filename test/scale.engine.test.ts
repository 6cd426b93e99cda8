/**
 * Fleet cost through the engine path, as call counts (deterministic; `npm run bench` reports the times):
 * - create: one add/order and one get/kvmid per server when EDIS provisions at once, the catalogue once per host,
 *   the new servers' session entries from listings shared by the creates that run together, and no get/power
 *   for servers whose power is not managed;
 * - refresh: one get/auth for the whole fleet, whatever the engine's parallelism, plus one get/power per server
 *   that manages powerState; management hosts that do not answer cost one request time limit, not one per server.
 */
import { join } from "node:path";
import { TestStack } from "./harness";
import { EdisSimulator } from "../simulator/server";
import { stackConfigFor, startSimulator } from "./support/sim";
import { POWER_READ_CONCURRENCY } from "../provider/kvm/power";

const N = 50;
/** The harness engine's default parallelism, as the CLI's. */
const PARALLELISM = 16;
let sim: EdisSimulator;
let stack: TestStack;

function fleet(extra: Record<string, unknown> = {}): string {
    return JSON.stringify(Object.fromEntries(Array.from({ length: N }, (_, i) => [`s${i}`, { planId: i % 2 ? 101 : 202, osId: 1012, hostname: `s${i}.example.com`, ...extra }])));
}

beforeAll(async () => {
    // EDIS provisions at once: every server has its KVM at the first get/kvmid.
    sim = await startSimulator({ latencyMs: 50, provisioningDelayMs: 0 });
    stack = TestStack.create({
        programDir: join(__dirname, "programs", "servers"),
        // A fleet of N is ordered knowingly: the default limit of new servers per deployment is 10.
        config: { ...stackConfigFor(sim), "edis:maxNewServers": String(N), "edis-servers:servers": fleet() },
        secretKeys: ["edis:email", "edis:password"],
    });
    stack.parallelism = PARALLELISM;
    const up = await stack.up();
    expect(up.errors).toEqual([]);
    const calls = sim.callCounts();
    console.log(`create of ${N} servers at parallelism ${PARALLELISM}: ${JSON.stringify(calls)}`);
    // The catalogue once per host process (two locations), one order and one KVM lookup per server, no power.
    expect(calls).toMatchObject({ "get/locations": 1, "get/paymentmethods": 1, "get/products": 4, "add/order": N, "get/kvmid": N });
    expect(calls["get/power"]).toBeUndefined();
    // The creates that run together share one listing: N / P of them, plus one for a wave the engine splits.
    expect(calls["get/auth"]).toBeLessThanOrEqual(Math.ceil(N / PARALLELISM) + 1);
    expect(Object.keys(calls).sort()).toEqual(["add/order", "get/auth", "get/kvmid", "get/locations", "get/paymentmethods", "get/products"]);
});
afterAll(async () => {
    stack.dispose();
    await sim.stop();
});

test.each([16, 1000])(`a refresh of ${N} servers that do not manage power, at parallelism %i, costs one get/auth`, async (parallelism) => {
    stack.parallelism = parallelism;
    sim.clearLog();
    const refresh = await stack.refresh();
    expect(refresh.errors).toEqual([]);
    expect(refresh.steps.filter((s) => s.op === "refresh")).toHaveLength(N);
    expect(sim.callCounts()).toEqual({ "get/auth": 1 });
});

test("a server missing from the listing is confirmed gone by both id lookups, not dropped on a guess", async () => {
    stack.parallelism = PARALLELISM;
    const gone = sim.account.state.services[0];
    sim.account.cancelService(gone, "Immediate");
    sim.clearLog();
    const refresh = await stack.refresh();
    expect(refresh.errors).toEqual([]);
    expect(sim.callCounts()).toEqual({ "get/auth": 1, "get/kvmid": 1, "get/serviceid": 1 });
    expect(stack.state().resources).toHaveLength(N - 1);
    // The program still declares it: the next up orders it again, as a refresh that dropped it says.
    stack.setConfig("edis-servers:servers", fleet());
    expect((await stack.up()).errors).toEqual([]);
});

describe("servers that manage powerState", () => {
    beforeAll(async () => {
        stack.parallelism = PARALLELISM;
        // A request time limit of 2 s, so that the hosts that do not answer below cost little test time.
        stack.setConfig("edis:requestTimeoutSeconds", "2");
        stack.setConfig("edis-servers:servers", fleet({ powerState: "on" }));
        sim.clearLog();
        const up = await stack.up();
        expect(up.errors).toEqual([]);
        // Managing power is an update that reads it: one get/power per server, and nothing is switched.
        expect(sim.calls("get/power")).toHaveLength(N);
        expect(sim.calls("set/poweron")).toHaveLength(0);
    });

    test("a refresh costs one get/auth and one get/power per server, each on its own host", async () => {
        sim.clearLog();
        const refresh = await stack.refresh();
        expect(refresh.errors).toEqual([]);
        expect(sim.callCounts()).toEqual({ "get/auth": 1, "get/power": N });
        expect(new Set(sim.calls("get/power").map((c) => c.fields.kvm_id)).size).toBe(N);
        // Bounded, whatever the engine's parallelism.
        expect(sim.peakConcurrency).toBeLessThanOrEqual(POWER_READ_CONCURRENCY + 1);
    });

    test("management hosts that never answer cost one request time limit for the whole refresh, reported once", async () => {
        sim.clearLog();
        sim.inject({ endpoint: "get/power", hang: true, times: N });
        stack.parallelism = 1000;
        const refresh = await stack.refresh();
        sim.clearFaults();
        expect(refresh.errors).toEqual([]);
        // Only the readings in flight when the window closed were sent, each once; the others were not sent.
        const unanswered = sim.calls("get/power");
        expect(unanswered.length).toBeLessThanOrEqual(POWER_READ_CONCURRENCY);
        expect(unanswered.every((c) => c.outcome === "unanswered")).toBe(true);
        expect(sim.calls("get/auth")).toHaveLength(1);
        const warnings = refresh.hostLog.filter((l) => l.includes("could not be read"));
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(/no answer within 2 s|answered within 2 s/);
        console.log(`refresh of ${N} servers against management hosts that never answer (limit 2 s): ${refresh.durationMs} ms, ${unanswered.length} get/power sent`);
        // Every server stays; power unknown shows as a change for the next up to check.
        expect(stack.state().resources.filter((r) => r.type.endsWith("KvmServer"))).toHaveLength(N);
        expect(stack.state().resources.filter((r) => r.outputs?.powerState !== undefined)).toHaveLength(0);
    });
});
