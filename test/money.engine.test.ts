/**
 * The money rules of the second round (DESIGN.md section 4), case by case through the engine path: each test
 * sets up one of the reviewed failures against the simulator and asserts both sides afterwards: what EDIS was
 * asked to do (paid writes, cancellations) and what Pulumi's state holds. The cases that the real engine decides
 * (renames, aliases, stack renames, replacements) are in test/cli/identity.cli.test.ts.
 */
import { join } from "node:path";
import { TestStack } from "./harness";
import { EdisSimulator } from "../simulator/server";
import { declareServers, runNamedCommand, simulatorAndStack } from "./support/sim";

const PROGRAM = join(__dirname, "programs", "servers");
const web1 = { planId: 101, osId: 1012, hostname: "web1.example.com" };
const PAID = ["add/order", "add/upgrade", "cancel/product"];

let sim: EdisSimulator;
let stack: TestStack;

beforeEach(async () => ({ sim, stack } = await simulatorAndStack(PROGRAM, { provisioningDelayMs: 200 })));
afterEach(async () => {
    stack.dispose();
    await sim.stop();
});

const declare = (servers: Record<string, Record<string, unknown>>) => declareServers(stack, servers);
const paidWrites = () => sim.log.filter((e) => PAID.includes(e.endpoint)).map((e) => e.endpoint);
const billed = () => sim.account.state.services.filter((s) => s.status !== "Cancelled" && !s.cancellation).map((s) => s.serviceId);
const inState = () => stack.state().resources.map((r) => Number(r.id));

async function upOk(): Promise<void> {
    const up = await stack.up();
    expect(up.errors).toEqual([]);
}

describe("what an answer means (one classifier)", () => {
    test("case 5: an empty listing and 'temporarily unavailable (backend not found)' from both lookups is not 'gone': the server stays (notListed), nothing is ordered again", async () => {
        declare({ web1 });
        await upOk();
        const id = Number(stack.resource("web1")!.id);
        const later = { status: "error", message: "Service temporarily unavailable (backend not found), please try again later" };
        sim.inject({ endpoint: "get/auth", times: 20, json: { status: "success", data: [] } });
        sim.inject({ endpoint: "get/kvmid", times: 20, json: later });
        sim.inject({ endpoint: "get/serviceid", times: 20, json: later });
        // The refresh goes on: the server stays, marked as not listed, and the warning carries EDIS's words.
        const refresh = await stack.refresh();
        expect(refresh.errors).toEqual([]);
        expect(inState()).toEqual([id]);
        expect(stack.resource("web1")!.outputs).toMatchObject({ notListed: true });
        expect(refresh.hostLog.join("\n")).toContain("is kept in the stack's state and shown as a change");
        expect(refresh.hostLog.join("\n")).toContain("temporarily unavailable");
        const up = await stack.up({ refresh: true });
        expect(up.errors).toEqual([]);
        expect(inState()).toEqual([id]);
        sim.clearFaults();
        await upOk();
        expect(inState()).toEqual([id]);
        expect(paidWrites()).toEqual(["add/order"]);
    });

    test("case 9: a server with no KVM yet (unpaid) is not taken as gone on one '404 KVM not found': read and delete both keep it", async () => {
        sim.behaviour.unpaidInvoices = true;
        declare({ web1 });
        expect((await stack.up()).errors.join("\n")).toContain("is unpaid");
        const id = Number(stack.resource("web1")!.id);
        const notFound = { status: "error", message: "KVM not found" };
        sim.inject({ endpoint: "cancel/product", status: 404, json: notFound });
        sim.inject({ endpoint: "get/kvmid", times: 10, status: 404, json: notFound });
        const down = await stack.destroy({ refresh: true });
        expect(down.errors.join("\n")).toContain("has no KVM yet");
        expect(inState()).toEqual([id]);
        expect(billed()).toEqual([id]);
    });
});

describe("any answer that names a service is an order", () => {
    test("case 6: add/upgrade answering 'failed' is never sent again without the user's say", async () => {
        declare({ web1 });
        await upOk();
        sim.inject({ endpoint: "add/upgrade", rewrite: (a) => ({ ...a, status: "failed" }) });
        declare({ web1: { ...web1, planId: 102 } });
        const first = await stack.up();
        expect(first.errors.join("\n")).toContain("may or may not have been made");
        const again = await stack.up();
        expect(again.errors.join("\n")).toContain("may or may not have been made");
        expect(paidWrites()).toEqual(["add/order", "add/upgrade"]);
        runNamedCommand(again.errors.join("\n"), "confirm");
        await upOk();
        expect(paidWrites()).toEqual(["add/order", "add/upgrade"]);
        expect(stack.resource("web1")!.outputs.planId).toBe(102);
    });

    test("case 8: two service ids for one item: the first is the resource's, the second is recorded, reported, and named on every up", async () => {
        sim.inject({ endpoint: "add/order", rewrite: (a) => ({ ...a, serviceids: `${String(a.serviceids)},9999` }) });
        declare({ web1 });
        const up = await stack.up();
        const id = sim.account.state.services[0].serviceId;
        expect(up.errors.join("\n")).toContain("service 9999 belongs to no resource and may be billed");
        expect(inState()).toEqual([id]);
        const next = await stack.up();
        expect(next.errors).toEqual([]);
        expect(next.hostLog.join("\n")).toContain("also named service(s) 9999");
        runNamedCommand(up.errors.join("\n"), "forget");
        expect((await stack.up()).hostLog.join("\n")).not.toContain("9999");
        expect(paidWrites()).toEqual(["add/order"]);
    });
});

describe("identity: one resource, one journal entry", () => {
});

describe("stock, add-ons, adoption, replacement", () => {
    test("case 10: a location that get/locations marks out of stock is refused before ordering, naming those in stock", async () => {
        sim.inject({
            endpoint: "get/locations",
            rewrite: (a) => {
                const locations = a.locations as Record<string, Record<string, unknown>>;
                return { ...a, locations: { ...locations, "Frankfurt, Germany": { ...locations["Frankfurt, Germany"], out_of_stock: true } } };
            },
        });
        declare({ web1 });
        const up = await stack.up();
        expect(up.errors.join("\n")).toContain("Frankfurt, Germany (locationId 1) is out of stock (get/locations says so); locations in stock: Vienna, Austria (locationId 2)");
        expect(paidWrites()).toEqual([]);
    });

    test("case 15: the plan's own 'no additional RAM' add-on instead of none is no change, either way", async () => {
        declare({ web1 });
        await upOk();
        declare({ web1: { ...web1, additionalRamId: 2000 } });
        const preview = await stack.preview();
        expect(preview.errors).toEqual([]);
        expect(preview.steps.find((s) => s.name === "web1")!.op).toBe("same");
        await upOk();
        declare({ web1 });
        expect((await stack.preview()).steps.find((s) => s.name === "web1")!.op).toBe("same");
        expect(paidWrites()).toEqual(["add/order"]);
    });

    test("with deleteBeforeReplace, a replacement whose new order the catalogue refutes cancels nothing: the check refuses it before any step", async () => {
        declare({ web1 });
        await upOk();
        stack.setConfig("edis-servers:options", JSON.stringify({ web1: { deleteBeforeReplace: true } }));
        declare({ web1: { ...web1, osId: 9999 } });
        // The new order is checked by check (preflight.ts), before the engine deletes the old half; the old half's
        // delete checks it again for what check could not know (kvm/provider.ts checkReplacementBeforeCancel).
        expect((await stack.preview()).errors.join("\n")).toContain("osId 9999 is not an operating system of plan 101 (KVM S)");
        const up = await stack.up();
        expect(up.errors.join("\n")).toContain("osId 9999 is not an operating system of plan 101 (KVM S)");
        expect(sim.account.state.cancellations).toEqual([]);
        expect(paidWrites()).toEqual(["add/order"]);
        expect(billed()).toHaveLength(1);
    });
});

describe("credentials in any spelling an echo may use", () => {
});

describe("hostile names, hooks", () => {
    test("a hook a dead deployment made is taken only for the same inputs; other inputs stop before a second hooks/set", async () => {
        declare({ web1 });
        await upOk();
        stack.setConfig("edis-servers:alerts", JSON.stringify({ web1: 80 }));
        // The engine dies after hooks/set answered, before its checkpoint: the journal has the hook, the state does not.
        stack.dieAfterCreateOf = "web1-traffic";
        await stack.up().catch(() => undefined);
        expect(sim.calls("hooks/set")).toHaveLength(1);
        stack.setConfig("edis-servers:alerts", JSON.stringify({ web1: 60 }));
        const other = await stack.up();
        expect(other.errors.join("\n")).toContain("with other inputs than this resource now has");
        expect(sim.calls("hooks/set")).toHaveLength(1);
        stack.setConfig("edis-servers:alerts", JSON.stringify({ web1: 80 }));
        const same = await stack.up();
        expect(same.errors).toEqual([]);
        expect(same.hostLog.join("\n")).toContain("it is taken, not created again");
        expect(sim.calls("hooks/set")).toHaveLength(1);
    });
});
