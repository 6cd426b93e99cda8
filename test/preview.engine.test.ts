/**
 * `pulumi preview` reports what `pulumi up` would refuse before ordering (provider/kvm/preflight.ts), through the
 * engine path: each mistake fails the preview with the input or config key at fault, nothing is ordered, and a
 * fleet's preview costs a few catalogue calls, none per server. Without credentials the inputs alone are checked.
 */
import { join } from "node:path";
import { TestStack } from "./harness";
import { EdisSimulator } from "../simulator/server";
import { declareServers, simulatorAndStack } from "./support/sim";

const PROGRAM = join(__dirname, "programs", "servers");
const web = { planId: 101, osId: 1012, hostname: "web1.example.com" };

let sim: EdisSimulator;
let stack: TestStack;

beforeEach(async () => ({ sim, stack } = await simulatorAndStack(PROGRAM)));
afterEach(async () => {
    stack.dispose();
    await sim.stop();
});

async function previewError(servers: Record<string, Record<string, unknown>>): Promise<string> {
    declareServers(stack, servers);
    const preview = await stack.preview();
    expect(preview.errors.length).toBeGreaterThan(0);
    expect(sim.calls("add/order")).toEqual([]);
    return preview.errors.join("\n");
}

test.each([
    ["a plan that does not exist", { ...web, planId: 999 }, /planId 999 is not a product at any location; plans at .*: 101 \(KVM S\)/],
    ["an OS of another plan", { ...web, osId: 1122 }, /osId 1122 is not an operating system of plan 101 \(KVM S\); allowed: 1011/],
    ["a payment method the account lacks, as an input", { ...web, paymentMethod: "bitcoin" }, /paymentMethod "bitcoin" is not available to this account; available: credit, paypal, banktransfer/],
])("%s fails the preview with the input, the problem and what is allowed", async (_title, server, expected) => {
    expect(await previewError({ web: server })).toMatch(expected);
});

test("a payment method from config that the account lacks names the config key", async () => {
    stack.setConfig("edis:paymentMethod", "bitcoin");
    expect(await previewError({ web })).toContain('the payment method of config `edis:paymentMethod` (or EDIS_PAYMENT_METHOD) "bitcoin" is not available to this account');
});

test("an endpoint that does not answer (a simulator that is not running) fails the preview naming the config keys", async () => {
    stack.setConfig("edis:baseUrl", "http://127.0.0.1:9");
    stack.setConfig("edis:authUrl", "http://127.0.0.1:9");
    expect(await previewError({ web })).toMatch(/could not be checked against EDIS's catalogue.*edis:baseUrl/);
});

test("without credentials the preview checks the inputs alone, passes, and says what it could not check", async () => {
    stack.setConfig("edis:email", "");
    stack.setConfig("edis:password", "", true);
    declareServers(stack, { web: { ...web, planId: 999 } });
    const preview = await stack.preview();
    expect(preview.errors).toEqual([]);
    expect(preview.hostLog.join("\n")).toMatch(/checked for its inputs only: without config `edis:email` .* and config `edis:password`/);
    expect(sim.log).toEqual([]);
});

test("a fleet's preview costs the catalogue once, no call per server", async () => {
    declareServers(stack, Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`s${i}`, { ...web, planId: i % 2 ? 101 : 202, hostname: `s${i}.example.com` }])));
    stack.setConfig("edis:maxNewServers", "12");
    const preview = await stack.preview();
    expect(preview.errors).toEqual([]);
    const counts = sim.callCounts();
    expect(Object.keys(counts).sort()).toEqual(["get/locations", "get/paymentmethods", "get/products"]);
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(6);
});

test("a server the journal holds an order for is not refused by a catalogue that changed since: its create takes it into state, ordering nothing", async () => {
    declareServers(stack, { web });
    // The engine dies after the create answered, before its checkpoint: EDIS bills the server, the journal has it.
    stack.dieAfterCreateOf = "web";
    await stack.up().catch(() => undefined);
    expect(sim.calls("add/order")).toHaveLength(1);
    expect(stack.state().resources).toHaveLength(0);
    // EDIS no longer sells the plan; a check of a new order would refuse it.
    sim.account.plans.splice(sim.account.plans.findIndex((p) => p.pid === 101), 1);
    expect((await stack.preview()).errors).toEqual([]);
    const up = await stack.up();
    expect(up.errors).toEqual([]);
    expect(sim.calls("add/order")).toHaveLength(1);
    expect(stack.resource("web")!.id).toBe(String(sim.account.state.services[0].serviceId));
});

test("an in-place change of a server whose create stopped after its order is not refused by a catalogue that changed: the update resumes it", async () => {
    sim.behaviour.unpaidInvoices = true;
    declareServers(stack, { web });
    expect((await stack.up()).errors.join("\n")).toContain("is unpaid");
    // A preview's diff finds the server in state and settles its journal entry: only state knows it now.
    await stack.preview();
    sim.behaviour.unpaidInvoices = false;
    sim.account.payInvoice(sim.account.state.invoices[0].invoiceId);
    // EDIS no longer sells the plan, and the program changes only the payment method: nothing is ordered anew.
    sim.account.plans.splice(sim.account.plans.findIndex((p) => p.pid === 101), 1);
    declareServers(stack, { web: { ...web, paymentMethod: "credit" } });
    const up = await stack.up();
    expect(up.errors).toEqual([]);
    expect(stack.resource("web")!.outputs.kvmId).toEqual(expect.stringMatching(/^kvm_/));
    expect(sim.calls("add/order")).toHaveLength(1);
});
