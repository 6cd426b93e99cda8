/**
 * One order for a fleet (`edis:batchOrders`), through the engine path: the servers one `up` creates together go
 * to EDIS in one add/order with one item each and one invoice, and the money rules hold for the batch as for
 * one order (provider/kvm/orderBatch.ts). Each test asserts what EDIS was asked and what state holds.
 */
import { join } from "node:path";
import { TestStack } from "./harness";
import { EdisSimulator } from "../simulator/server";
import { declareServers, simulatorAndStack } from "./support/sim";
import { OrderJournal } from "../provider/journal";

const PROGRAM = join(__dirname, "programs", "servers");
const fleet = {
    web1: { planId: 101, osId: 1012, hostname: "web1.example.com" },
    web2: { planId: 101, osId: 1012, hostname: "web2.example.com" },
    db1: { planId: 102, osId: 1012, hostname: "db1.example.com" },
};

let sim: EdisSimulator;
let stack: TestStack;

beforeEach(async () => {
    ({ sim, stack } = await simulatorAndStack(PROGRAM, { provisioningDelayMs: 200 }));
    stack.setConfig("edis:batchOrders", "true");
    sim.account.state.credit = 1_000;
});
afterEach(async () => {
    stack.dispose();
    await sim.stop();
});

const declare = (servers: Record<string, Record<string, unknown>>) => declareServers(stack, servers);
const orders = () => sim.calls("add/order");
/** Service id by host name, as EDIS holds them. */
const services = () => Object.fromEntries(sim.account.state.services.map((s) => [s.hostname, s.serviceId]));
/** Service id by host name, as state holds them. */
const inState = () => Object.fromEntries(stack.state().resources.map((r) => [r.outputs.hostname as string, Number(r.id)]));
/** The order entries of the journal whose outcome is unknown. */
const unresolved = async () => (await new OrderJournal(join(stack.project.dir, ".pulumi-edis", "journal")).list()).filter((e) => e.kind === "order" && (e.state === "unknown" || e.state === "sending"));
const itemsOf = (call: { fields: Record<string, unknown> }) => (JSON.parse(String(call.fields.order)) as { item: Array<{ hostname: string }> }).item.map((i) => i.hostname);

test("different billing cycles are different orders; without batchOrders each server is its own order", async () => {
    declare({ ...fleet, db1: { ...fleet.db1, billingCycle: "quarterly" } });
    expect((await stack.up()).errors).toEqual([]);
    expect(orders().map((o) => itemsOf(o).length).sort()).toEqual([1, 2]);
    stack.setConfig("edis:batchOrders", "false");
    declare({ ...fleet, db1: { ...fleet.db1, billingCycle: "quarterly" }, web3: { ...fleet.web1, hostname: "web3.example.com" }, web4: { ...fleet.web1, hostname: "web4.example.com" } });
    sim.clearLog();
    expect((await stack.up()).errors).toEqual([]);
    expect(orders().map((o) => itemsOf(o).length)).toEqual([1, 1]);
});

test("an answer lost after EDIS made the order: every member stays blocked and nothing is ordered twice; adopting resolves each", async () => {
    declare(fleet);
    sim.inject({ endpoint: "add/order", drop: "after" });
    expect((await stack.up()).errors).toHaveLength(3);
    expect(orders()).toHaveLength(1);
    const made = services();
    expect(Object.keys(made).sort()).toEqual(["db1.example.com", "web1.example.com", "web2.example.com"]);
    expect((await stack.up()).errors.length).toBeGreaterThanOrEqual(1);
    expect(orders()).toHaveLength(1);
    expect(await unresolved()).toHaveLength(3);
    // The user finds the servers by description and adopts each on its own resource.
    await new Promise((r) => setTimeout(r, 300));
    sim.account.advance();
    const kvmOf = (hostname: string) => sim.account.state.services.find((s) => s.hostname === hostname)!.kvmId;
    const adopted = Object.fromEntries(Object.entries(fleet).map(([name, s]) => [name, { ...s, adoptKvmId: kvmOf(s.hostname) }]));
    declare(adopted);
    const up = await stack.up();
    expect(up.errors).toEqual([]);
    expect(orders()).toHaveLength(1);
    expect(inState()).toEqual(made);
});

test("members whose create fails after the order (unpaid invoice) reach state with their service ids; paying resumes them without a second order", async () => {
    sim.behaviour.unpaidInvoices = true;
    declare(fleet);
    const up = await stack.up();
    expect(up.errors).toHaveLength(3);
    for (const e of up.errors) expect(e).toContain("is unpaid");
    expect(inState()).toEqual(services());
    sim.behaviour.unpaidInvoices = false;
    for (const invoice of sim.account.state.invoices) sim.account.payInvoice(invoice.invoiceId);
    const resumed = await stack.up();
    expect(resumed.errors).toEqual([]);
    expect(orders()).toHaveLength(1);
    expect(stack.state().resources.every((r) => typeof r.outputs.kvmId === "string")).toBe(true);
});

test("service ids EDIS answers in another order than the items: each member that got another's server fails naming both, and stays in state", async () => {
    declare(fleet);
    // EDIS made the three services but listed their ids reversed.
    sim.inject({
        endpoint: "add/order",
        rewrite: (answer) => ({ ...answer, serviceids: String(answer.serviceids).split(",").reverse().join(",") }),
    });
    const up = await stack.up();
    expect(orders()).toHaveLength(1);
    // The middle item maps to itself; the first and the last got each other's.
    expect(up.errors).toHaveLength(2);
    for (const e of up.errors) {
        expect(e).toMatch(/is held by (\S+) because of its place in order \d+ \(batch [0-9a-f]{16}\), but EDIS describes that KVM as "(\S+)"/);
        const [, taken, described] = /is held by (\S+) because .* describes that KVM as "(\S+)"/.exec(e)!;
        expect(taken).not.toBe(described);
    }
    // Nothing is lost: all three billed servers are in state, none ordered twice.
    expect(Object.values(inState()).sort()).toEqual(Object.values(services()).sort());
    // The check is not a one-off: the next up fails the same way, and nothing is ordered.
    const again = await stack.up();
    expect(again.errors.join("\n")).toMatch(/describes that KVM as/);
    expect(orders()).toHaveLength(1);
    // Removing a swapped server from the program cancels nothing: its service may be another resource's.
    const swapped = Object.entries(fleet).find(([name]) => inState()[fleet[name as keyof typeof fleet].hostname] !== services()[fleet[name as keyof typeof fleet].hostname])![0];
    declare(Object.fromEntries(Object.entries(fleet).filter(([name]) => name !== swapped)));
    const removed = await stack.up();
    expect(removed.errors.join("\n")).toMatch(/describes that KVM as .*Nothing is changed or cancelled on it/);
    expect(sim.calls("cancel/product")).toHaveLength(0);
});

test("a swap found only by a refresh (the invoice was unpaid at create): the refresh fails naming both, and nothing acts on the servers", async () => {
    sim.behaviour.unpaidInvoices = true;
    declare(fleet);
    sim.inject({ endpoint: "add/order", rewrite: (answer) => ({ ...answer, serviceids: String(answer.serviceids).split(",").reverse().join(",") }) });
    expect((await stack.up()).errors).toHaveLength(3);
    sim.behaviour.unpaidInvoices = false;
    for (const invoice of sim.account.state.invoices) sim.account.payInvoice(invoice.invoiceId);
    await new Promise((r) => setTimeout(r, 300));
    const refresh = await stack.refresh();
    expect(refresh.errors.join("\n")).toMatch(/describes that KVM as/);
    const up = await stack.up();
    expect(up.errors.join("\n")).toMatch(/describes that KVM as/);
    expect(orders()).toHaveLength(1);
    expect(sim.calls("cancel/product")).toHaveLength(0);
});

test("two servers of one host name never share an order, so the description can tell every member apart", async () => {
    declare({ a: { ...fleet.web1, hostname: "same.example.com" }, b: { ...fleet.db1, hostname: "same.example.com" }, c: fleet.web2 });
    expect((await stack.up()).errors).toEqual([]);
    const sizes = orders().map((o) => itemsOf(o));
    expect(sizes).toHaveLength(2);
    for (const items of sizes) expect(new Set(items).size).toBe(items.length);
});
