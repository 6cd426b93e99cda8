/**
 * Money rules (DESIGN.md section 4) that the provider decides, on one core per deployment (support/inProcess.ts):
 * what EDIS was asked to do (paid writes, cancellations) and what the engine is given to keep. The cases the engine
 * decides (renames, aliases, replacements, killed deployments) run through the real CLI in test/cli.
 */
import { kvmServerOn } from "../provider/kvm/provider";
import { EdisSimulator } from "../simulator/server";
import { Held, InProcess, simulatorAndCore, upServer, upServerFails } from "./support/inProcess";
import { runNamedCommand } from "./support/sim";

const web1 = { planId: 101, osId: 1012, hostname: "web1.example.com" };
const PAID = ["add/order", "add/upgrade", "cancel/product"];

let sim: EdisSimulator;
let next: () => InProcess;
afterEach(() => sim.stop());

const paidWrites = () => sim.log.filter((l) => PAID.includes(l.endpoint)).map((l) => l.endpoint);
const billed = () => sim.account.state.services.filter((s) => s.status !== "Cancelled" && !s.cancellation).map((s) => s.serviceId);

const up = (held: Held | undefined, inputs: Record<string, unknown> = web1) => upServer(next, held, inputs);
const upFails = (held: Held | undefined, inputs: Record<string, unknown> = web1) => upServerFails(next, held, inputs);

describe("what an answer means (one classifier)", () => {
    test("an empty listing and 'temporarily unavailable (backend not found)' from both lookups is not 'gone': the server stays (notListed), nothing is ordered again", async () => {
        ({ sim, next } = await simulatorAndCore());
        const { held } = await up(undefined);
        const later = { status: "error", message: "Service temporarily unavailable (backend not found), please try again later" };
        sim.inject({ endpoint: "get/auth", times: 20, json: { status: "success", data: [] } });
        sim.inject({ endpoint: "get/kvmid", times: 20, json: later });
        sim.inject({ endpoint: "get/serviceid", times: 20, json: later });
        const e = next();
        const read = (await e.refresh(kvmServerOn(e.core), held))!;
        expect(read.id).toBe(held.id);
        expect(read.outs).toMatchObject({ notListed: true });
        expect(e.log).toContain("is kept in the stack's state and shown as a change");
        expect(e.log).toContain("temporarily unavailable");
        // The plan shows an update, which looks again and keeps the server while it is still not listed.
        const looked = await up(read);
        expect(looked.step).toBe("update");
        expect(looked.held.id).toBe(held.id);
        sim.clearFaults();
        expect((await up(looked.held)).held.outs.notListed).toBeUndefined();
        expect(paidWrites()).toEqual(["add/order"]);
    });

    test("a server with no KVM yet (unpaid) is not taken as gone on one '404 KVM not found': read and delete both keep it", async () => {
        ({ sim, next } = await simulatorAndCore({ unpaidInvoices: true }));
        const { held } = await up(undefined);
        expect(held.initError).toContain("is unpaid");
        const notFound = { status: "error", message: "KVM not found" };
        sim.inject({ endpoint: "cancel/product", status: 404, json: notFound });
        sim.inject({ endpoint: "get/kvmid", times: 10, status: 404, json: notFound });
        const e = next();
        const read = (await e.refresh(kvmServerOn(e.core), held))!;
        expect(read.id).toBe(held.id);
        expect(await e.failure(e.destroy(kvmServerOn(e.core), read))).toContain("has no KVM yet");
        expect(billed()).toEqual([Number(held.id)]);
    });
});

describe("any answer that names a service is an order", () => {
    test("add/upgrade answering 'failed' is never sent again without the user's say", async () => {
        ({ sim, next } = await simulatorAndCore());
        const { held } = await up(undefined);
        sim.inject({ endpoint: "add/upgrade", rewrite: (a) => ({ ...a, status: "failed" }) });
        expect(await upFails(held, { ...web1, planId: 102 })).toContain("may or may not have been made");
        const again = await upFails(held, { ...web1, planId: 102 });
        expect(again).toContain("may or may not have been made");
        expect(paidWrites()).toEqual(["add/order", "add/upgrade"]);
        runNamedCommand(again, "confirm");
        expect((await up(held, { ...web1, planId: 102 })).held.outs.planId).toBe(102);
        expect(paidWrites()).toEqual(["add/order", "add/upgrade"]);
    });

    test("two service ids for one item: the first is the resource's, the second is recorded, reported, and named on every up until forgotten", async () => {
        ({ sim, next } = await simulatorAndCore());
        sim.inject({ endpoint: "add/order", rewrite: (a) => ({ ...a, serviceids: `${String(a.serviceids)},9999` }) });
        const { held } = await up(undefined);
        expect(held.id).toBe(String(sim.account.state.services[0].serviceId));
        expect(held.initError).toContain("service 9999 belongs to no resource and may be billed");
        const nextUp = await up(held);
        expect(nextUp.e.log).toContain("also named service(s) 9999");
        runNamedCommand(held.initError!, "forget");
        expect((await up(nextUp.held)).e.log).not.toContain("9999");
        expect(paidWrites()).toEqual(["add/order"]);
    });
});

describe("the catalogue", () => {
    test("a location that get/locations marks out of stock is refused before ordering, naming those in stock", async () => {
        ({ sim, next } = await simulatorAndCore());
        sim.inject({
            endpoint: "get/locations",
            rewrite: (a) => {
                const locations = a.locations as Record<string, Record<string, unknown>>;
                return { ...a, locations: { ...locations, "Frankfurt, Germany": { ...locations["Frankfurt, Germany"], out_of_stock: true } } };
            },
        });
        expect(await upFails(undefined)).toContain("Frankfurt, Germany (locationId 1) is out of stock (get/locations says so); locations in stock: Vienna, Austria (locationId 2)");
        expect(paidWrites()).toEqual([]);
    });

    test("the plan's own 'no additional RAM' add-on instead of none is no change, either way, in check too: nothing priced, counted or refused", async () => {
        let config: Record<string, string>;
        ({ sim, next, config } = await simulatorAndCore());
        const { held } = await up(undefined);
        // Limits that any counted change would pass: the check must count none.
        const limited = new InProcess({ ...config, "edis:maxAddedMonthlySpend": "1 EUR", "edis:maxNewServers": "0" });
        const noExtra = await limited.up(kvmServerOn(limited.core), held, { ...web1, additionalRamId: 2000 });
        expect(noExtra.step).toBe("same");
        expect(limited.log).not.toContain("replaced");
        const withAddon = { ...held, inputs: { ...held.inputs, additionalRamId: 2000 }, outs: { ...held.outs, additionalRamId: 2000 } };
        expect((await up(withAddon)).step).toBe("same");
        expect(paidWrites()).toEqual(["add/order"]);
    });

    test("a replacement whose new order the catalogue refutes is refused by check, before any step (so before any cancel, deleteBeforeReplace or not)", async () => {
        ({ sim, next } = await simulatorAndCore());
        const { held } = await up(undefined);
        expect(await upFails(held, { ...web1, osId: 9999 })).toContain("osId 9999 is not an operating system of plan 101 (KVM S)");
        expect(sim.account.state.cancellations).toEqual([]);
        expect(paidWrites()).toEqual(["add/order"]);
        expect(billed()).toHaveLength(1);
    });
});
