// Fleet cost as call counts (deterministic; `npm run bench` reports the times), the engine's calls made as it makes
// them: checks one at a time, then creates and reads up to its parallelism at once, on one core per deployment.
import { kvmServerOn } from "../provider/kvm/provider";
import { POWER_READ_CONCURRENCY } from "../provider/kvm/power";
import { EdisSimulator } from "../simulator/server";
import { Held, InProcess, simulatorAndCore } from "./support/inProcess";

const N = 50;
/** The CLI's default parallelism. */
const PARALLELISM = 16;
let sim: EdisSimulator;
let config: Record<string, string>;
let fleet: Held[];

const inputs = (i: number, extra: Record<string, unknown> = {}) => ({ planId: i % 2 ? 101 : 202, osId: 1012, hostname: `s${i}.example.com`, ...extra });

/** `op` over every item, at most `parallelism` at once, as the engine runs independent steps. */
async function inParallel<T, R>(items: T[], parallelism: number, op: (item: T) => Promise<R>): Promise<R[]> {
    const results: R[] = new Array(items.length);
    let nextIndex = 0;
    const worker = async () => {
        for (let i = nextIndex++; i < items.length; i = nextIndex++) results[i] = await op(items[i]);
    };
    await Promise.all(Array.from({ length: Math.min(parallelism, items.length) }, worker));
    return results;
}

/** A `pulumi refresh` in a new provider process: every server read, at most `parallelism` at once. */
async function refresh(parallelism = PARALLELISM, settings: Record<string, string> = {}): Promise<{ e: InProcess; read: Array<Held | undefined> }> {
    const e = new InProcess({ ...config, ...settings });
    const provider = kvmServerOn(e.core);
    return { e, read: await inParallel(fleet, parallelism, (held) => e.refresh(provider, held)) };
}

beforeAll(async () => {
    // EDIS provisions at once: every server has its KVM at the first get/kvmid.
    ({ sim, config } = await simulatorAndCore({ latencyMs: 50, provisioningDelayMs: 0 }, { "edis:maxNewServers": String(N) }));
    const e = new InProcess(config);
    const provider = kvmServerOn(e.core);
    const checked = [];
    for (let i = 0; i < N; i++) checked.push((await provider.check({}, inputs(i))).inputs);
    fleet = await inParallel(checked, PARALLELISM, async (news) => {
        const { id, outs = {} } = await provider.create(news);
        return { id, inputs: news, outs };
    });
    const calls = sim.callCounts();
    // The catalogue once (two locations), one order and one KVM lookup per server, no power.
    expect(calls).toMatchObject({ "get/locations": 1, "get/paymentmethods": 1, "get/products": 4, "add/order": N, "get/kvmid": N });
    // The creates that run together share one listing: N / P of them, plus one for a wave split in two.
    expect(calls["get/auth"]).toBeLessThanOrEqual(Math.ceil(N / PARALLELISM) + 1);
    expect(Object.keys(calls).sort()).toEqual(["add/order", "get/auth", "get/kvmid", "get/locations", "get/paymentmethods", "get/products"]);
});
afterAll(() => sim.stop());

test.each([16, 1000])(`a refresh of ${N} servers that do not manage power, at parallelism %i, costs one get/auth`, async (parallelism) => {
    sim.clearLog();
    const { read } = await refresh(parallelism);
    expect(read.filter((r) => r?.id)).toHaveLength(N);
    expect(sim.callCounts()).toEqual({ "get/auth": 1 });
});

describe("servers that manage powerState", () => {
    beforeAll(async () => {
        sim.clearLog();
        const e = new InProcess(config);
        const provider = kvmServerOn(e.core);
        // Managing power is an update that reads it: one get/power per server, and nothing is switched.
        fleet = await inParallel(fleet, PARALLELISM, async (held) => {
            const news = { ...held.inputs, powerState: "on" };
            const { outs = {} } = await provider.update(held.id, held.outs, news);
            return { id: held.id, inputs: news, outs };
        });
        expect(sim.calls("get/power")).toHaveLength(fleet.length);
        expect(sim.calls("set/poweron")).toHaveLength(0);
    });

    test("a refresh costs one get/auth and one get/power per server, each on its own host", async () => {
        sim.clearLog();
        await refresh();
        expect(sim.callCounts()).toEqual({ "get/auth": 1, "get/power": fleet.length });
        expect(new Set(sim.calls("get/power").map((c) => c.fields.kvm_id)).size).toBe(fleet.length);
        // Bounded, whatever the engine's parallelism.
        expect(sim.peakConcurrency).toBeLessThanOrEqual(POWER_READ_CONCURRENCY + 1);
    });

    test("management hosts that never answer cost one request time limit for the whole refresh, reported once", async () => {
        sim.clearLog();
        sim.inject({ endpoint: "get/power", hang: true, times: N });
        // A request time limit of 2 s, so that the hosts that do not answer cost little test time.
        const { e, read } = await refresh(1000, { "edis:requestTimeoutSeconds": "2" });
        sim.clearFaults();
        // Only the readings in flight when the window closed were sent, each once; the others were not sent.
        const unanswered = sim.calls("get/power");
        expect(unanswered.length).toBeLessThanOrEqual(POWER_READ_CONCURRENCY);
        expect(unanswered.every((c) => c.outcome === "unanswered")).toBe(true);
        expect(sim.calls("get/auth")).toHaveLength(1);
        const warnings = e.text.filter((l) => l.includes("could not be read"));
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(/no answer within 2 s|answered within 2 s/);
        // Every server stays; power unknown shows as a change for the next up to check.
        expect(read.filter((r) => r?.id)).toHaveLength(fleet.length);
        expect(read.filter((r) => r?.outs.powerState !== undefined)).toHaveLength(0);
    });
});
