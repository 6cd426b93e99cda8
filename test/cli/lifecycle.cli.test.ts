// Whole lifecycles through the real CLI, checking after each command the engine's steps, the state and the paid writes.
import { EdisSimulator } from "../../simulator/server";
import { CliResult, nameOf } from "./pulumi";
import { SERVERS, cliStacksPerTest, declare, expectNoCredentials, paidWrites } from "./support";

interface Observed {
    ok: boolean;
    /** Each resource's steps in order: refresh, create, same, update, replace, delete, read; failed ones end in "!". */
    steps: Record<string, string[]>;
    paid: string[];
    /** Each resource's service, named by what EDIS holds for its id (host name and plan: ids depend on the order of parallel creates). */
    state: Record<string, { service: string; kvmId: boolean; initErrors: boolean; planId?: unknown; locationId?: unknown }>;
    output: string;
}

/** A replacement as one "replace" step (the engine's create-replacement; its "replace" step only swaps the halves in state) and the old half's "delete". */
function steps(r: CliResult): Record<string, string[]> {
    const renamed = (op: string) => op.replace(/^delete-replaced/, "delete").replace(/^create-replacement/, "replace");
    const all = Object.entries(r.ops).map(([name, ops]) => [name, ops.filter((op) => !/^replace!?$/.test(op)).map(renamed)] as const);
    return Object.fromEntries(all.filter(([, ops]) => ops.length > 0));
}

const open = cliStacksPerTest();

/** A stack of the servers program on a simulator whose invoices stay unpaid until `payAll`. */
async function lifecycle() {
    const f = await open(SERVERS, { sim: { unpaidInvoices: true } });
    const { sim, stack } = f;
    return {
        sim,
        async run(command: "up" | "preview" | "refresh" | "destroy", flags: string[] = []): Promise<Observed> {
            const r = await stack[command](flags);
            const resources = ((await stack.deployment()).resources ?? []).filter((x) => x.custom && !x.type.startsWith("pulumi:providers:") && !x.delete);
            const state = Object.fromEntries(resources.map((x) => [nameOf(x.urn), observedState(sim, x.id!, x.outputs ?? {}, x.initErrors)]));
            return { ok: r.code === 0, steps: steps(r), paid: paidWrites(sim), state, output: r.output };
        },
        declare: (servers: Record<string, object>, options?: Record<string, object>) => declare(stack, servers, options),
        setConfig: (key: string, value: string, secret = false) => stack.setConfig({ [key]: value }, secret ? [key] : []),
        refreshAlways: () => stack.refreshAlways(),
        noCredentials: () => expectNoCredentials(f),
    };
}

/** A resource in state: its service as EDIS knows it (`host name@plan`), and what its outputs hold. */
function observedState(sim: EdisSimulator, id: string, outputs: Record<string, unknown>, initErrors: string[] = []): Observed["state"][string] {
    const service = sim.account.state.services.find((s) => String(s.serviceId) === id);
    return { service: service ? `${service.hostname}@${service.pid}` : `unknown ${id}`, kvmId: typeof outputs.kvmId === "string", initErrors: initErrors.length > 0, planId: outputs.planId, locationId: outputs.locationId };
}

const a = { planId: 101, osId: 1012, hostname: "a.example.com" };
const b = { planId: 101, osId: 1012, hostname: "b.example.com" };

function payAll(sim: EdisSimulator): void {
    for (const invoice of sim.account.state.invoices) sim.account.payInvoice(invoice.invoiceId);
}

test("an unpaid create finished by the next up without a second order, a no-change up, an in-place upgrade, a replacement (and replaceOnChanges doing nothing), a planned and a real delete, destroy", async () => {
    const r = await lifecycle();
    await r.declare({ a, b });
    // An unpaid invoice stops each create: the server is in state with its service id and an init error, no KVM id.
    const unpaid = await r.run("up");
    expect(unpaid).toMatchObject({ ok: false, paid: ["add/order", "add/order"], state: { a: { kvmId: false, initErrors: true } } });
    expect(unpaid.output).toContain("is unpaid");
    // A plan change declared while it waits: the engine keeps the update's init-error outputs, which hold the plan EDIS
    // bills, not the one asked for; declared back, it is no plan change.
    await r.declare({ a: { ...a, planId: 102, provisioningTimeoutSeconds: 1 }, b: { ...b, provisioningTimeoutSeconds: 1 } });
    expect(await r.run("up")).toMatchObject({ ok: false, paid: unpaid.paid, state: { a: { planId: 101, initErrors: true } } });
    await r.declare({ a, b });
    payAll(r.sim);
    // Once paid, the next up finishes each create by an update, without a second order.
    const resumed = await r.run("up");
    expect(resumed).toMatchObject({ ok: true, steps: { a: ["update"] }, paid: unpaid.paid, state: { a: { kvmId: true, initErrors: false } } });
    expect(resumed.output).toContain("not ordering again");
    expect(Object.values((await r.run("up")).steps).flat().filter((op) => op !== "same")).toEqual([]);
    // Engine fact: replaceOnChanges applies only to keys Diff reports, and the dynamic host reports none: in place.
    await r.declare({ a: { ...a, planId: 102 }, b }, { a: { replaceOnChanges: ["planId"] } });
    const inPlace = await r.run("preview");
    expect(inPlace.steps.a).toEqual(["update"]);
    const upgraded = await r.run("up");
    expect(upgraded).toMatchObject({ ok: true, paid: ["add/order", "add/order", "add/upgrade"] });
    // deleteBeforeReplace, new half refuted by the catalogue: the engine checks it before any step; nothing is paid.
    await r.declare({ a: { ...a, planId: 201, osId: 9999, replaceOnPlanChange: true }, b }, { a: { deleteBeforeReplace: true } });
    const refuted = await r.run("up");
    expect(refuted).toMatchObject({ ok: false, paid: upgraded.paid, state: { a: { planId: 102 } } });
    expect(refuted.output).toContain("osId 9999 is not an operating system of plan 201");
    // The input the provider's Diff honours: a new server at the new plan's location, then the old one cancelled.
    await r.declare({ a: { ...a, planId: 201, replaceOnPlanChange: true }, b });
    const planned = await r.run("preview");
    expect(planned).toMatchObject({ steps: { a: ["replace", "delete"] }, paid: upgraded.paid });
    await r.run("up");
    payAll(r.sim);
    const replaced = await r.run("up");
    // One new order, and the cancel of the old server, not the new one.
    expect(replaced).toMatchObject({ ok: true, paid: [...upgraded.paid, "add/order", "cancel/product"] });
    const services = r.sim.account.state.services.filter((s) => s.hostname === a.hostname);
    expect(services.map((s) => s.pid)).toEqual([102, 201]);
    expect(r.sim.calls("cancel/product").map((c) => c.fields.serviceid)).toEqual([String(services[0].serviceId)]);
    expect(replaced.state.a).toMatchObject({ service: `${a.hostname}@201`, planId: 201, locationId: 2 });
    // Engine fact: the new half, stopped by its unpaid invoice, is finished by an update; then the old half is deleted.
    expect(replaced.steps.a).toEqual(["update", "delete"]);
    const settled = await r.run("preview");
    expect(settled.ok).toBe(true);
    expect(Object.values(settled.steps).flat().filter((op) => op !== "same")).toEqual([]);
    await r.declare({ a: { ...a, planId: 201, replaceOnPlanChange: true } });
    // Preview plans the delete (and --expect-no-changes counts it); only up cancels.
    expect(await r.run("preview", ["--expect-no-changes"])).toMatchObject({ ok: false, steps: { b: ["delete"] }, paid: replaced.paid });
    expect(await r.run("up")).toMatchObject({ ok: true, steps: { b: ["delete"] }, paid: [...replaced.paid, "cancel/product"] });
    expect(await r.run("destroy")).toMatchObject({ ok: true, steps: { a: ["delete"] }, state: {} });
    // Four orders (a, b, the upgrade, the replacement), three cancels (the old a, b, a).
    expect(r.sim.summary()).toMatchObject({ orders: 4, cancellations: 3 });
    await r.noCredentials();
});

test("with refresh always, an unpaid create previews as unfinished and is finished after payment; refresh always clears init errors; a failing refresh (a changed edis:password) stops up, preview and destroy, each saying once how to record the new one; refresh and destroy use the recorded config", async () => {
    const r = await lifecycle();
    r.refreshAlways();
    await r.declare({ a });
    expect((await r.run("up")).ok).toBe(false);
    // Until it is paid, every preview shows it unfinished (an update).
    expect((await r.run("preview")).steps.a).toEqual(["refresh", "update"]);
    payAll(r.sim);
    const resumed = await r.run("up");
    expect(resumed).toMatchObject({ ok: true, paid: ["add/order"], state: { a: { kvmId: true, initErrors: false } } });
    // The password is changed at EDIS and in the stack config, as a user rotating it does.
    r.sim.account.setPassword("rotated-Passw0rd");
    await r.setConfig("edis:password", "rotated-Passw0rd", true);
    const refused = [
        await r.run("refresh"),
        await r.run("preview"),
        await r.run("destroy"),
    ];
    // The destroy's cancel/product went out with the recorded password and was refused: nothing was cancelled.
    expect(r.sim.summary()).toMatchObject({ orders: 1, cancellations: 0 });
    for (const { output } of refused) {
        expect(output).toContain("the e-mail or password was refused");
        expect(output).toContain("record them with one `pulumi up --refresh=false`");
        expect(output).not.toContain("rotated-Passw0rd");
        // Said once on any line: no message repeats itself inside another.
        expect(output.split("\n").filter((line) => line.split("the e-mail or password was refused").length > 2)).toEqual([]);
    }
    // Following the error: an up without refresh records the new config (nothing at EDIS changes), then all works.
    expect((await r.run("up", ["--refresh=false"])).steps.a).toEqual(["same"]);
    expect((await r.run("refresh")).ok).toBe(true);
    expect((await r.run("destroy")).ok).toBe(true);
    expect(r.sim.summary()).toMatchObject({ orders: 1, cancellations: 1 });
    await r.noCredentials();
});
