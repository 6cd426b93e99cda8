/**
 * KvmServer through the real engine path: programs run under setMocks, and every registration goes, with
 * the `__provider` that `new KvmServer(...)` serialized, to the real @pulumi/pulumi dynamic-provider host
 * (working directory outside this repository) over gRPC. The simulator's log and state are the witnesses.
 */
import { join } from "node:path";
import { TestStack } from "./harness";
import { EdisSimulator } from "../simulator/server";
import { declareServers, runNamedCommand, simulatorAndStack } from "./support/sim";

const PROGRAM = join(__dirname, "programs", "servers");
const WRITES = ["add/order", "add/upgrade", "cancel/product"];

let sim: EdisSimulator;
let stack: TestStack;

beforeEach(async () => ({ sim, stack } = await simulatorAndStack(PROGRAM, { provisioningDelayMs: 300 })));
afterEach(async () => {
    stack.dispose();
    await sim.stop();
});

function declare(servers: Record<string, Record<string, unknown>>, read: Record<string, string> = {}): void {
    declareServers(stack, servers, read);
}

const web1 = { planId: 101, osId: 1012, hostname: "web1.example.com" };
const web2 = { planId: 102, osId: 1024, hostname: "web2.example.com", billingCycle: "semi-annually", additionalIpId: 2201 };

function writes(): string[] {
    return sim.log.filter((e) => WRITES.includes(e.endpoint)).map((e) => e.endpoint);
}

/** The plan: each resource's step, refresh steps left out. */
function ops(result: { steps: Array<{ name: string; op: string }> }): Record<string, string> {
    // A replacement's planned or real delete of the old half is part of its "replace".
    const replaced = new Set(result.steps.filter((s) => s.op === "replace").map((s) => s.name));
    return Object.fromEntries(result.steps.filter((s) => s.op !== "refresh" && !(s.op === "delete" && replaced.has(s.name))).map((s) => [s.name, s.op]));
}

describe("scenario 2: what a change does", () => {
    beforeEach(async () => {
        declare({ web1, web2 });
        expect((await stack.up()).errors).toEqual([]);
        sim.clearLog();
    });

    test("a state that records no location (an older version's) learns it in place, and refuses a wrong one", async () => {
        stack.editState((s) => s.resources.forEach((r) => delete r.outputs.locationId));
        declare({ web1: { ...web1, locationId: 2 }, web2 });
        const wrong = await stack.up();
        expect(ops(wrong)).toEqual({ web1: "update", web2: "same" });
        expect(wrong.errors.join("\n")).toContain("web1.example.com (service " + stack.resource("web1")!.id + ") is at Frankfurt, Germany (locationId 1), not at locationId 2; nothing was changed");
        declare({ web1: { ...web1, locationId: 1 }, web2 });
        expect(ops(await stack.up())).toEqual({ web1: "update", web2: "same" });
        expect(stack.resource("web1")!.outputs.locationId).toBe(1);
        expect(writes()).toEqual([]);
    });

    test("a changed cancellationType is an in-place update with no API write", async () => {
        declare({ web1: { ...web1, cancellationType: "Immediate" }, web2 });
        expect(ops(await stack.preview())).toEqual({ web1: "update", web2: "same" });
        const up = await stack.up();
        expect(up.errors).toEqual([]);
        expect(ops(up)).toEqual({ web1: "update", web2: "same" });
        expect(sim.callCounts()).toEqual({});
        expect(stack.resource("web1")!.outputs).toMatchObject({ cancellationType: "Immediate", kvmId: expect.any(String) });

        await stack.destroy();
        const types = Object.fromEntries(sim.calls("cancel/product").map((c) => [c.fields.serviceid, c.fields.type]));
        expect(Object.values(types).sort()).toEqual(["End of Billing Period", "Immediate"]);
    });

    test("an upgrade with a payment method the account lacks is refused before add/upgrade is sent", async () => {
        declare({ web1: { ...web1, planId: 102, paymentMethod: "bitcoin" }, web2 });
        const up = await stack.up();
        expect(up.errors.join("\n")).toContain('paymentMethod "bitcoin" is not available to this account; available: credit, paypal, banktransfer');
        expect(writes()).toEqual([]);
    });

    test("an upgrade whose answer cannot be read blocks a second one; 'forget' (it was not made) lets it be sent again", async () => {
        sim.inject({ endpoint: "add/upgrade", body: "badjson" });
        declare({ web1: { ...web1, planId: 102 }, web2 });
        const up = await stack.up();
        expect(up.errors.join("\n")).toContain("the plan change of web1.example.com");
        expect(up.errors.join("\n")).toContain("may or may not have been made");
        expect(stack.resource("web1")!.outputs.planId).toBe(101);
        const blocked = await stack.up();
        expect(blocked.errors.join("\n")).toContain("an earlier change of web1.example.com (service " + stack.resource("web1")!.id + ") to plan 102, monthly");
        expect(sim.calls("add/upgrade")).toHaveLength(1);

        runNamedCommand(blocked.errors.join("\n"), "forget");
        expect((await stack.up()).errors).toEqual([]);
        expect([sim.calls("add/upgrade").length, sim.account.state.upgrades.length, stack.resource("web1")!.outputs.planId]).toEqual([2, 1, 102]);
    });

    test("an upgrade made but its answer lost: blocked; 'confirm' (it was made) records it without sending it again", async () => {
        sim.inject({ endpoint: "add/upgrade", drop: "after" });
        declare({ web1: { ...web1, planId: 102 }, web2 });
        const up = await stack.up();
        expect(up.errors.join("\n")).toContain("may or may not have been made");
        expect(sim.account.state.upgrades).toHaveLength(1);
        const blocked = await stack.up();
        expect(sim.calls("add/upgrade")).toHaveLength(1);

        expect(runNamedCommand(blocked.errors.join("\n"), "confirm")).toContain("confirmed: urn:pulumi:dev::edis-servers::pulumi-nodejs:dynamic/edis:KvmServer::web1  upgrade  done");
        const recorded = await stack.up();
        expect(recorded.errors).toEqual([]);
        expect(recorded.hostLog.join("\n")).toContain("not sent again");
        expect([sim.calls("add/upgrade").length, sim.account.state.upgrades.length, stack.resource("web1")!.outputs.planId]).toEqual([1, 1, 102]);
    });

    test("a planId at another location is refused before anything is bought, with how to replace instead", async () => {
        declare({ web1: { ...web1, planId: 301 }, web2 });
        const up = await stack.up();
        expect(up.ok).toBe(false);
        expect(up.errors.join("\n")).toContain("EDIS changes plans only within a location");
        expect(up.errors.join("\n")).toContain("replaceOnPlanChange: true");
        expect(writes()).toEqual([]);
        expect(stack.resource("web1")!.outputs.planId).toBe(101);
    });
});

describe("scenario 4: failures after the order never lose it and never order twice", () => {
    test("an unpaid server that is destroyed instead is cancelled", async () => {
        sim.behaviour.unpaidInvoices = true;
        declare({ web1 });
        expect((await stack.up()).ok).toBe(false);
        const down = await stack.destroy();
        expect(down.errors).toEqual([]);
        expect(sim.calls("cancel/product")).toHaveLength(1);
        expect(stack.state().resources).toEqual([]);
    });
});

describe("scenario 5: bad inputs fail clearly, before money is spent", () => {
    test("a plan from another location, a foreign OS and add-ons, a group the plan lacks: one error listing all, no order", async () => {
        declare({ a: { ...web1, planId: 301, locationId: 1 } });
        const wrongLocation = await stack.up();
        expect(wrongLocation.errors.join("\n")).toContain(
            "planId 301 belongs to London, United Kingdom (locationId 3), not to Frankfurt, Germany (locationId 1)",
        );
        declare({ b: { planId: 301, osId: 1122, hostname: "b.example.com", billingCycle: "annually", additionalRamId: 2201, diskBoostId: 2301 } });
        const text = (await stack.up()).errors.join("\n");
        expect(text).toContain("osId 1122 is not an operating system of plan 301 (KVM S); allowed: 1011 (Debian 11 (64bit))");
        expect(text).toContain("additionalRamId 2201 is not a RAM add-on of plan 301 (KVM S); allowed: 2000 (no additional RAM), 2001 (+1024 MB RAM), 2002");
        expect(text).toContain("diskBoostId 2301 is not a disk boost add-on of plan 301 (KVM S); allowed: none");
        declare({ c: { ...web1, paymentMethod: "bitcoin" } });
        expect((await stack.up()).errors.join("\n")).toContain('paymentMethod "bitcoin" is not available to this account; available: credit, paypal, banktransfer');
        expect(sim.calls("add/order")).toEqual([]);
        expect(stack.state().resources).toEqual([]);
    });

    test("missing credentials: preview works, up names both the config key and the variable", async () => {
        delete stack.config["edis:password"];
        declare({ web1 });
        expect((await stack.preview()).errors).toEqual([]);
        const up = await stack.up();
        expect(up.errors.join("\n")).toContain("config `edis:password` (or EDIS_PASSWORD)");
        // The environment fallback is enough.
        stack.env.EDIS_PASSWORD = sim.account.state.password;
        expect((await stack.up()).errors).toEqual([]);
    });
});

describe("scenario 6: adoption and reading existing servers", () => {
    test("an unknown adoptKvmId is a clear error", async () => {
        declare({ old: { ...web1, adoptKvmId: "kvm_000000_000000" } });
        expect((await stack.up()).errors.join("\n")).toContain('adoptKvmId "kvm_000000_000000" is not a KVM of this EDIS account');
    });
});

