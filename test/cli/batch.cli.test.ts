// One order for a fleet (`edis:batchOrders`) through the real CLI, at its own default parallelism.
import { SimulatorOptions } from "../../simulator/server";
import { runNamedCommand } from "../support/journalCommand";
import { DOORS, SERVERS, cliStacksPerTest, expectNoCredentials, failed, ok, openDoor, paidWrites, upKilledWhileProvisioning } from "./support";

const fleet = {
    web1: { planId: 101, osId: 1012, hostname: "web1.example.com" },
    web2: { planId: 101, osId: 1012, hostname: "web2.example.com" },
    db1: { planId: 102, osId: 1012, hostname: "db1.example.com" },
};

const open = cliStacksPerTest();
const openFleet = (sim: SimulatorOptions = {}) => open(SERVERS, { sim, config: { "edis:batchOrders": "true", "edis-servers:servers": JSON.stringify(fleet) } });

const itemsOf = (fields: Record<string, unknown>) => (JSON.parse(String(fields.order)) as { item: Array<{ hostname: string }> }).item.map((i) => i.hostname).sort();

test("three servers in one `pulumi up` cost one add/order with three items and one invoice; preview then shows no change; destroy cancels all three", async () => {
    const f = await openFleet();
    const { sim, stack } = f;
    const up = ok(await stack.up());
    expect(up.ops).toEqual({ web1: ["create"], web2: ["create"], db1: ["create"] });
    const orders = sim.calls("add/order");
    expect(orders).toHaveLength(1);
    expect(itemsOf(orders[0].fields)).toEqual(["db1.example.com", "web1.example.com", "web2.example.com"]);
    expect(sim.account.state.invoices).toHaveLength(1);
    expect(up.output).toMatch(/ordering 3 servers in one order \(batch [0-9a-f]{16}\)/);
    // Each resource holds the server EDIS made for its host name.
    const resources = await stack.resources();
    for (const [name, server] of Object.entries(fleet)) {
        const made = sim.account.state.services.find((s) => s.hostname === server.hostname)!;
        expect(resources[name].id).toBe(String(made.serviceId));
    }
    ok(await stack.preview(["--expect-no-changes"]));
    ok(await stack.destroy());
    expect(paidWrites(sim)).toEqual(["add/order", "cancel/product", "cancel/product", "cancel/product"]);
    await expectNoCredentials(f);
});

test("pulumi killed with SIGKILL after the batched order answered: `pulumi cancel`, `pulumi refresh --import-pending-creates` (which imports nothing), then `pulumi up` resumes all three from the journal and orders nothing", async () => {
    const { sim, stack } = await openFleet({ provisioningDelayMs: 5000 });
    await upKilledWhileProvisioning(sim, stack);
    expect(paidWrites(sim)).toEqual(["add/order"]);
    ok(await stack.run(["cancel", "--yes"]));
    // The engine drops the pending creates but imports nothing (docs/guides/failures-and-the-order-journal.md): a dynamic
    // resource cannot be read without the __provider that only a create or an update stores. The journal resumes them.
    const pending = (await stack.deployment()).pending_operations ?? [];
    expect(pending.map((p) => p.type)).toEqual(["creating", "creating", "creating"]);
    const serviceOf = (urn: string) => sim.account.state.services.find((s) => urn.endsWith(`::${s.hostname.split(".")[0]}`))!.serviceId;
    const imports = pending.flatMap((p) => ["--import-pending-creates", p.resource.urn, "--import-pending-creates", String(serviceOf(p.resource.urn))]);
    expect(ok(await stack.refresh(imports)).ops).toEqual({});
    expect((await stack.deployment()).pending_operations ?? []).toEqual([]);
    expect(await stack.resources()).toEqual({});
    const again = ok(await stack.up());
    expect(again.output).toContain("it is in the order journal, so it is waited for, not ordered again");
    expect(paidWrites(sim)).toEqual(["add/order"]);
    const resources = await stack.resources();
    expect(Object.keys(resources).sort()).toEqual(["db1", "web1", "web2"]);
    for (const r of Object.values(resources)) expect(r.outputs).toMatchObject({ kvmId: expect.stringMatching(/^kvm_/) });
    ok(await stack.destroy());
    expect(paidWrites(sim).filter((w) => w === "cancel/product")).toHaveLength(3);
});

test("a lost answer of the batched order blocks every member; the one command the error prints resolves the whole batch", async () => {
    const { sim, stack } = await openFleet({ faults: [{ endpoint: "add/order", drop: "before" }] });
    const lost = failed(await stack.up());
    expect(lost.output).toContain("may or may not have been made");
    expect(lost.output).toMatch(/orders forget --batch [0-9a-f]{16}/);
    expect(failed(await stack.up()).output).toContain("may or may not have been made");
    expect(paidWrites(sim)).toEqual(["add/order"]);
    const forgot = await runNamedCommand(lost.output, "forget", stack.project.dir);
    expect(forgot.match(/^forgot: /gm)).toHaveLength(3);
    ok(await stack.up());
    expect(paidWrites(sim)).toEqual(["add/order", "add/order"]);
    expect(itemsOf(sim.calls("add/order")[1].fields)).toHaveLength(3);
    ok(await stack.destroy());
});

test.each(DOORS)("service ids answered in reverse and unpaid at create, so no description showed it: after payment, deleting a member ($name) cancels nothing", async (door) => {
    const pair = { web1: fleet.web1, db1: fleet.db1 };
    const { sim, stack } = await openDoor(open, door, pair, { sim: { unpaidInvoices: true }, config: { "edis:batchOrders": "true" } });
    sim.inject({ endpoint: "add/order", rewrite: (a) => ({ ...a, serviceids: String(a.serviceids).split(",").reverse().join(",") }) });
    expect(failed(await stack.up()).output).toContain("is unpaid");
    expect(Object.keys(await stack.resources()).sort()).toEqual(["db1", "web1"]);
    sim.behaviour.unpaidInvoices = false;
    for (const invoice of sim.account.state.invoices) sim.account.payInvoice(invoice.invoiceId);
    sim.account.advance();

    // The state holds no KVM for web1: its delete asks EDIS for one and reads its description before any cancel. (Alone:
    // in an up, db1's update fails the same way first, and the engine then deletes nothing.)
    const removed = failed(await stack.destroy(["--target", door.urn("web1")]));
    expect(removed.output).toMatch(/is held by web1\.example\.com because of its place in order \d+ .*but EDIS describes that KVM as \\?"db1\.example\.com/);
    expect(paidWrites(sim)).toEqual(["add/order"]);
    expect(Object.keys(await stack.resources()).sort()).toEqual(["db1", "web1"]);
});
