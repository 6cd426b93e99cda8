/**
 * Fleet scale through the engine path: a refresh of many servers shares one get/auth for the whole
 * account, whatever the engine's parallelism (npm run bench measures the same up to 200 servers).
 */
import { join } from "node:path";
import { TestStack } from "./harness";
import { EdisSimulator } from "../simulator/server";
import { stackConfigFor, startSimulator } from "./support/sim";

const N = 50;
let sim: EdisSimulator;
let stack: TestStack;

beforeAll(async () => {
    sim = await startSimulator({ latencyMs: 50, provisioningDelayMs: 100 });
    const servers = Object.fromEntries(Array.from({ length: N }, (_, i) => [`s${i}`, { planId: i % 2 ? 101 : 202, osId: 1012, hostname: `s${i}.example.com` }]));
    stack = TestStack.create({
        programDir: join(__dirname, "programs", "servers"),
        config: { ...stackConfigFor(sim), "edis-servers:servers": JSON.stringify(servers) },
        secretKeys: ["edis:email", "edis:password"],
    });
    const up = await stack.up();
    expect(up.errors).toEqual([]);
    // Pre-order catalogue answers are fetched once per host process, not once per server, and the new servers'
    // session entries come from shared listings of the account.
    const calls = sim.callCounts();
    expect(calls).toMatchObject({ "get/locations": 1, "get/paymentmethods": 1, "get/products": 4, "add/order": N });
    // Servers that finish within one batching window share a listing, so the N creates cost fewer listings than
    // servers. How many fewer depends on when each provisioning ends (4 to 10 measured on an idle machine, 22 on a
    // loaded CI run), so only the sharing itself is asserted here; a deterministic count is issue 19's target.
    expect(calls["get/auth"]).toBeLessThan(N);
    console.log(`create of ${N} servers: ${JSON.stringify(calls)}`);
});
afterAll(async () => {
    stack.dispose();
    await sim.stop();
});

test.each([16, 1000])(`a refresh of ${N} servers at parallelism %i costs one get/auth, and one get/power per server on its own host`, async (parallelism) => {
    stack.parallelism = parallelism;
    sim.clearLog();
    const refresh = await stack.refresh();
    expect(refresh.errors).toEqual([]);
    expect(refresh.steps.filter((s) => s.op === "refresh")).toHaveLength(N);
    // The listing's sessions serve the power reads: no get/auth per server.
    expect(sim.callCounts()).toEqual({ "get/auth": 1, "get/power": N });
    expect(new Set(sim.calls("get/power").map((c) => c.fields.kvm_id)).size).toBe(N);
    expect(refresh.durationMs).toBeLessThan(5_000);
});

test("a server missing from the listing is confirmed gone by both id lookups, not dropped on a guess", async () => {
    stack.parallelism = 16;
    const gone = sim.account.state.services[0];
    sim.account.cancelService(gone, "Immediate");
    sim.clearLog();
    const refresh = await stack.refresh();
    expect(refresh.errors).toEqual([]);
    expect(sim.callCounts()).toEqual({ "get/auth": 1, "get/kvmid": 1, "get/serviceid": 1, "get/power": N - 1 });
    expect(stack.state().resources).toHaveLength(N - 1);
});
