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

/** Calls of the pre-order check only (the catalogue, fetched once per deployment): what a preview may cost. */
function onlyCatalogue(counts: Record<string, number>): boolean {
    const catalogue = ["get/locations", "get/products", "get/paymentmethods", "get/billingcycles"];
    return Object.keys(counts).every((e) => catalogue.includes(e)) && Object.values(counts).reduce((a, b) => a + b, 0) <= 6;
}

describe("scenario 2: what a change does", () => {
    beforeEach(async () => {
        declare({ web1, web2 });
        expect((await stack.up()).errors).toEqual([]);
        sim.clearLog();
    });

    test("a changed osId previews as a replacement of exactly that server, and up replaces it create-before-delete", async () => {
        declare({ web1: { ...web1, osId: 1024 }, web2 });
        const preview = await stack.preview();
        expect(preview.errors).toEqual([]);
        expect(ops(preview)).toEqual({ web1: "replace", web2: "same" });
        expect(preview.steps.find((s) => s.name === "web1")!.changed).toEqual(["osId"]);
        expect(onlyCatalogue(sim.callCounts())).toBe(true);

        const oldId = stack.resource("web1")!.id;
        const up = await stack.up();
        expect(up.errors).toEqual([]);
        expect(up.steps.filter((s) => s.name === "web1").map((s) => s.op)).toEqual(["replace", "delete"]);
        expect(writes()).toEqual(["add/order", "cancel/product"]);
        expect(sim.calls("cancel/product")[0].fields.serviceid).toBe(oldId);
        expect(stack.resource("web1")!.id).not.toBe(oldId);
        expect(stack.state().resources).toHaveLength(2);
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

    test("a changed planId in the same location is in place, with one add/upgrade", async () => {
        declare({ web1: { ...web1, planId: 103 }, web2 });
        expect(ops(await stack.preview())).toEqual({ web1: "update", web2: "same" });
        // The preview checks the changed order against the catalogue: catalogue calls only, once per deployment.
        expect(onlyCatalogue(sim.callCounts())).toBe(true);
        const up = await stack.up();
        expect(up.errors).toEqual([]);
        expect(writes()).toEqual(["add/upgrade"]);
        expect(sim.calls("add/upgrade")[0].fields).toMatchObject({ newpid: 103, newbillingcycle: "monthly" });
        expect(sim.account.state.services.find((s) => s.hostname === "web1.example.com")!.pid).toBe(103);
        expect(stack.resource("web1")!.outputs.planId).toBe(103);
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
    test("provisioning slower than the limit: up fails with the service in state; the next up finishes it", async () => {
        sim.behaviour.provisioningDelayMs = 3_000;
        declare({ web1: { ...web1, provisioningTimeoutSeconds: 1 } });
        const up = await stack.up();
        expect(up.ok).toBe(false);
        expect(up.errors.join("\n")).toMatch(/was ordered but has no KVM after 1 s/);
        const saved = stack.resource("web1")!;
        expect(saved.initErrors).toHaveLength(1);
        expect(saved.outputs).toMatchObject({ serviceId: Number(saved.id), orderId: expect.any(Number) });
        expect(saved.outputs.kvmId).toBeUndefined();
        expect(up.hostLog.join("\n")).toContain(`service ${saved.id}`);

        declare({ web1: { ...web1, provisioningTimeoutSeconds: 30 } });
        const resumed = await stack.up();
        expect(resumed.errors).toEqual([]);
        expect(ops(resumed)).toEqual({ web1: "update" });
        expect(resumed.hostLog.join("\n")).toContain("not ordering again");
        expect(stack.resource("web1")).toMatchObject({ id: saved.id, outputs: { kvmId: expect.stringMatching(/^kvm_/) } });
        expect(stack.resource("web1")!.initErrors).toBeUndefined();
        expect(sim.calls("add/order")).toHaveLength(1);
    });

    test("'not yet' as HTTP 200 {status: error}: up keeps polling and orders, refresh reads, destroy cancels", async () => {
        sim.behaviour.kvmIdNotYet = "error";
        sim.behaviour.provisioningPolls = 3;
        declare({ web1 });
        const up = await stack.up();
        expect(up.errors).toEqual([]);
        const polls = sim.calls("get/kvmid").map((c) => `${c.httpStatus} ${c.outcome}`);
        expect(polls.slice(0, 3)).toEqual(["200 error", "200 error", "200 error"]);
        expect(polls[polls.length - 1]).toBe("200 success");
        expect(polls.filter((p) => p === "200 success")).toHaveLength(1);
        expect(sim.calls("add/order")).toHaveLength(1);
        const kvmId = stack.resource("web1")!.outputs.kvmId;
        expect(kvmId).toMatch(/^kvm_/);

        const refresh = await stack.refresh();
        expect(refresh.errors).toEqual([]);
        expect(refresh.drift).toEqual({});
        const down = await stack.destroy();
        expect(down.errors).toEqual([]);
        expect(sim.calls("cancel/product").map((c) => c.fields.serviceid)).toEqual([String(sim.account.state.services[0].serviceId)]);
        expect(stack.state().resources).toEqual([]);
    });

    test("'not yet' past the time limit: the error shows the last answer; the next up resumes without ordering", async () => {
        sim.behaviour.kvmIdNotYet = "error";
        sim.behaviour.provisioningPolls = 1_000_000;
        declare({ web1: { ...web1, provisioningTimeoutSeconds: 1 } });
        const up = await stack.up();
        const serviceId = sim.account.state.services[0].serviceId;
        expect(up.errors.join("\n")).toMatch(
            new RegExp(`has no KVM after 1 s and \\d+ polls \\(last answer: EDIS get/kvmid: refused \\(HTTP 200\\); server said: Service ${serviceId} has no KVM assigned at the moment`),
        );
        expect(stack.resource("web1")).toMatchObject({ id: String(serviceId), initErrors: [expect.any(String)] });

        sim.behaviour.provisioningPolls = 0;
        declare({ web1 });
        const resumed = await stack.up();
        expect(resumed.errors).toEqual([]);
        expect(ops(resumed)).toEqual({ web1: "update" });
        expect(stack.resource("web1")!.outputs.kvmId).toMatch(/^kvm_/);
        expect(sim.calls("add/order")).toHaveLength(1);
    });

    test("an unpaid server that is destroyed instead is cancelled", async () => {
        sim.behaviour.unpaidInvoices = true;
        declare({ web1 });
        expect((await stack.up()).ok).toBe(false);
        const down = await stack.destroy();
        expect(down.errors).toEqual([]);
        expect(sim.calls("cancel/product")).toHaveLength(1);
        expect(stack.state().resources).toEqual([]);
    });

    test("a failed order that names an order id but no service: blocked until the user says, never ordered again silently", async () => {
        sim.behaviour.outOfStock = [101];
        declare({ web1 });
        const up = await stack.up();
        const orderId = sim.account.state.orders[0].orderId;
        expect(up.errors.join("\n")).toContain(`the order for web1.example.com may or may not have been made`);
        expect(up.errors.join("\n")).toContain(`the answer names order ${orderId}`);
        expect((await stack.up()).errors.join("\n")).toContain("It is not sent again");
        expect(sim.calls("add/order")).toHaveLength(1);
        expect(stack.state().resources).toEqual([]);
        // The user sees the failed order in the client area and says so: the next up orders again.
        sim.behaviour.outOfStock = [];
        runNamedCommand(up.errors.join("\n"), "forget");
        expect((await stack.up()).errors).toEqual([]);
        expect(sim.calls("add/order")).toHaveLength(2);
    });
});

describe("scenario 5: bad inputs fail clearly, before money is spent", () => {
    test("offline checks name the field, the problem and what is allowed; preview already fails", async () => {
        declare({
            bad: {
                planId: -3,
                osId: 1012,
                hostname: "-web_1.example.com",
                billingCycle: "weekly",
                sshPublicKey: "ssh-ed25519 AAAAnotakey",
                cancellationType: "Later",
                hostName: "typo",
            },
        });
        const preview = await stack.preview();
        expect(preview.ok).toBe(false);
        const text = preview.errors.join("\n");
        expect(text).toContain("planId must be a positive whole number");
        expect(text).toContain('hostname "-web_1.example.com" is not an RFC 1123 host name');
        expect(text).toContain('billingCycle must be one of "monthly", "quarterly", "semiannually", "annually"');
        expect(text).toContain("sshPublicKey has key data that does not encode a ssh-ed25519 key");
        expect(text).toContain('cancellationType must be "Immediate" or "End of Billing Period", got "Later"');
        expect(text).toContain("hostName is not a KvmServer input (did you mean hostname?)");
        expect((await stack.up()).ok).toBe(false);
        expect(sim.log).toEqual([]);
    });

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

