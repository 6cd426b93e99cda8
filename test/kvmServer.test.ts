// KvmServer's changes, failures after an order, bad inputs, adoption and money rules (DESIGN.md section 4) as the
// provider decides them (support/inProcess.ts); what the engine decides runs through the real CLI in test/cli.
import { kvmServerOn } from "../provider/kvm/provider";
import { trafficAlertOn } from "../provider/management/trafficAlert";
import { EdisSimulator } from "../simulator/server";
import { Held, InProcess, simulatorAndCore, upServer } from "./support/inProcess";
import { runNamedCommand } from "./support/sim";

const web1 = { planId: 101, osId: 1012, hostname: "web1.example.com" };
const WRITES = ["add/order", "add/upgrade", "cancel/product"];

let sim: EdisSimulator;
let next: () => InProcess;
let config: Record<string, string>;
beforeEach(async () => ({ sim, next, config } = await simulatorAndCore()));
afterEach(() => sim.stop());

const billed = () => sim.account.state.services.filter((s) => s.status !== "Cancelled" && !s.cancellation).map((s) => s.serviceId);
const writes = () => sim.log.filter((l) => WRITES.includes(l.endpoint)).map((l) => l.endpoint);

const up = (held: Held | undefined, inputs: Record<string, unknown> = web1) => upServer(next, held, inputs);
const upFails = (held: Held | undefined, inputs: Record<string, unknown> = web1, e = next()) => e.failure(e.up(kvmServerOn(e.core), held, inputs));

describe("what a change does", () => {
    let held: Held;
    beforeEach(async () => {
        ({ held } = await up(undefined));
        sim.clearLog();
    });

    test("a state that records no location (an older version's) learns it in place, and refuses a wrong one", async () => {
        const older = { ...held, outs: { ...held.outs, locationId: undefined } };
        expect(await upFails(older, { ...web1, locationId: 2 })).toContain(`web1.example.com (service ${held.id}) is at Frankfurt, Germany (locationId 1), not at locationId 2; nothing was changed`);
        const learned = await up(older, { ...web1, locationId: 1 });
        expect(learned.step).toBe("update");
        expect(learned.held.outs.locationId).toBe(1);
        expect(writes()).toEqual([]);
    });

    test("the list price is in state as ordered and as upgraded, and a refresh keeps it; an upgrade's check says what it adds and edis:maxAddedMonthlySpend refuses past it; a replacement names both sides", async () => {
        expect(held.outs.listPrice).toEqual({ amount: 4.5, billingCycle: "monthly", currency: "EUR", monthly: 4.5 });
        const e = next();
        const read = (await e.refresh(kvmServerOn(e.core), held))!;
        expect(read.outs.listPrice).toEqual(held.outs.listPrice);

        const limited = new InProcess({ ...config, "edis:maxAddedMonthlySpend": "3 EUR" });
        expect(await limited.failure(limited.up(kvmServerOn(limited.core), read, { ...web1, planId: 102 }))).toContain(
            "web1.example.com (3.50 EUR/month) would bring what this deployment adds to 3.50 EUR/month, past config `edis:maxAddedMonthlySpend` (or EDIS_MAX_ADDED_MONTHLY_SPEND) (3.00 EUR): its plan is not changed",
        );
        expect(writes()).toEqual([]);
        const upgraded = await up(read, { ...web1, planId: 102 });
        expect(upgraded.e.log).toContain("web1.example.com: changes to KVM M, billed monthly: 8.00 EUR/month at list price before tax (+3.50 EUR/month); this deployment adds 3.50 EUR/month so far");
        expect(upgraded.held.outs.listPrice).toEqual({ amount: 8, billingCycle: "monthly", currency: "EUR", monthly: 8 });

        const replaced = await up(upgraded.held, { ...web1, planId: 102, osId: 1024 });
        expect(replaced.step).toBe("replace");
        expect(replaced.e.log).toContain(
            "web1.example.com: is replaced: orders KVM M, billed monthly: 8.00 EUR/month at list price before tax (the server it replaces: 8.00 EUR/month); this deployment adds 8.00 EUR/month so far",
        );
        expect(replaced.held.outs.listPrice).toEqual({ amount: 8, billingCycle: "monthly", currency: "EUR", monthly: 8 });
    });

    test("an upgrade with a payment method the account lacks, or to a plan at another location, is refused before anything is bought", async () => {
        expect(await upFails(held, { ...web1, planId: 102, paymentMethod: "bitcoin" })).toContain('paymentMethod "bitcoin" is not available to this account; available: credit, paypal, banktransfer');
        const elsewhere = await upFails(held, { ...web1, planId: 301 });
        expect(elsewhere).toContain("EDIS changes plans only within a location");
        expect(elsewhere).toContain("replaceOnPlanChange: true");
        expect(writes()).toEqual([]);
    });

    test.each([
        ["the plan", (p: { id: number }) => ({ ...p, out_of_stock: p.id === 102 }), "plan 102 (KVM M) is out of stock"],
        ["its location", (p: object) => ({ ...p, out_of_stock: false }), "Frankfurt, Germany (locationId 1) is out of stock"],
    ])("a plan change to what EDIS sells out of (%s) is refused by check (so preview) and by the update, as an order is: nothing bought", async (what, plan, refusal) => {
        const soldOut = (a: Record<string, Record<string, object>>) => ({ ...a, products: Object.fromEntries(Object.entries(a.products).map(([k, p]) => [k, plan(p as { id: number })])) });
        sim.inject({ endpoint: "get/products", times: 1000, rewrite: soldOut as (a: Record<string, unknown>) => unknown });
        const frankfurtSoldOut = (l: Record<string, object>) => ({ ...l, "Frankfurt, Germany": { ...l["Frankfurt, Germany"], out_of_stock: true } });
        if (what === "its location") sim.inject({ endpoint: "get/locations", times: 1000, rewrite: (a) => ({ ...a, locations: frankfurtSoldOut(a.locations as Record<string, object>) }) });
        expect(await upFails(held, { ...web1, planId: 102 })).toContain(`${refusal}`);
        // The update's own check, as `pulumi up --skip-preview` of a state whose check passed earlier reaches it.
        const e = next();
        const update = kvmServerOn(e.core).update!(held.id, held.outs, { ...held.inputs, planId: 102 });
        expect(await e.failure(update)).toContain(`nothing was changed for web1.example.com (service ${held.id}): ${refusal}`);
        expect(writes()).toEqual([]);
        // Another billing cycle of the plan it has takes no new capacity: stock does not refuse it.
        if (what === "its location") expect((await up(held, { ...web1, billingCycle: "quarterly" })).step).toBe("update");
        expect(writes()).toEqual(what === "its location" ? ["add/upgrade"] : []);
    });

    test("a plan change EDIS made (its answer lost, then confirmed) is recorded once the plan is sold out: stock limits new capacity only", async () => {
        sim.inject({ endpoint: "add/upgrade", drop: "after" });
        await upFails(held, { ...web1, planId: 102 });
        await runNamedCommand(await upFails(held, { ...web1, planId: 102 }), "confirm");
        const soldOut = (a: Record<string, Record<string, object>>) => ({ ...a, products: Object.fromEntries(Object.entries(a.products).map(([k, p]) => [k, { ...p, out_of_stock: true }])) });
        sim.inject({ endpoint: "get/products", times: 1000, rewrite: soldOut as (a: Record<string, unknown>) => unknown });
        expect((await up(held, { ...web1, planId: 102 })).held.outs.planId).toBe(102);
        expect(sim.calls("add/upgrade")).toHaveLength(1);
    });

    test("a plan change the journal says was made is still counted against edis:maxAddedMonthlySpend: check is not told which server made it", async () => {
        await up(held, { ...web1, planId: 102 }); // made; the engine dies before saving it: state keeps plan 101
        const limited = new InProcess({ ...config, "edis:maxAddedMonthlySpend": "3 EUR" });
        expect(await limited.failure(limited.up(kvmServerOn(limited.core), held, { ...web1, planId: 102 }))).toContain("past config `edis:maxAddedMonthlySpend`");
        expect(sim.calls("add/upgrade")).toHaveLength(1);
    });

    test("a plan change EDIS made that state lacks (its engine died) is never dropped: another change is refused until it is recorded", async () => {
        await up(held, { ...web1, planId: 102 }); // made; the engine dies before saving it: state keeps plan 101
        const e = next();
        expect(await e.failure(kvmServerOn(e.core).update!(held.id, held.outs, { ...held.inputs, planId: 103 }))).toContain("declare plan 102, monthly and run `pulumi up` to record it");
        expect((await up(held, { ...web1, planId: 102 })).held.outs.planId).toBe(102);
        expect(sim.calls("add/upgrade")).toHaveLength(1);
    });

    test("a made plan change can be recorded after EDIS withdrew its plan; a finished one state shows stops nothing after a stack rename (the plugin's refresh records the new key)", async () => {
        const upgraded = (await up(held, { ...web1, planId: 102 })).held;
        await up(held, { ...web1, planId: 103 }).catch(() => undefined); // refused: 102 was made and state lacks it
        const withdrawn = (a: Record<string, Record<string, { id: number }>>) => ({ ...a, products: Object.fromEntries(Object.entries(a.products).filter(([, p]) => p.id !== 102)) });
        sim.inject({ endpoint: "get/products", times: 1000, rewrite: withdrawn as (a: Record<string, unknown>) => unknown });
        expect((await up(held, { ...web1, planId: 102 })).held.outs.planId).toBe(102);
        sim.clearFaults();
        const key = "urn:pulumi:b::p::edis:test::web";
        const renamed = { ...upgraded, inputs: { ...upgraded.inputs, __resourceKey: key }, outs: { ...upgraded.outs, __resourceKey: key } };
        expect((await up(renamed, { ...web1, planId: 103 })).held.outs.planId).toBe(103);
        expect(sim.calls("add/upgrade")).toHaveLength(2);
    });

    test("a plan change made under a renamed stack (its engine died), then the stack renamed again: it stops the write, not sent twice", async () => {
        const at = (stack: string) => ({ ...held, inputs: { ...held.inputs, __resourceKey: `urn:pulumi:${stack}::p::edis:test::web` } });
        await up(at("b"), { ...web1, planId: 102 }); // state keeps plan 101 and the first stack's key
        expect(await upFails(at("c"), { ...web1, planId: 102 })).toContain("holds an unfinished upgrade for urn:pulumi:b::");
        expect(sim.calls("add/upgrade")).toHaveLength(1);
    });

    test.each([
        ["answered with an unreadable body", { body: "badjson" }, "forget", [2, 1]],
        ["made but its answer lost", { drop: "after" }, "confirm", [1, 1]],
        ["answered 'failed' (an answer naming a service is an order)", { rewrite: (a: Record<string, unknown>) => ({ ...a, status: "failed" }) }, "confirm", [1, 1]],
    ] as const)("an upgrade %s (%j) blocks a second one until the user says %s; then [sent, made] is %j", async (_how, fault, verb, after) => {
        sim.inject({ endpoint: "add/upgrade", ...fault });
        expect(await upFails(held, { ...web1, planId: 102 })).toContain("may or may not have been made");
        const blocked = await upFails(held, { ...web1, planId: 102 });
        expect(blocked).toContain(`an earlier change of web1.example.com (service ${held.id}) to plan 102, monthly`);
        expect(sim.calls("add/upgrade")).toHaveLength(1);
        expect(await runNamedCommand(blocked, verb)).toMatch(verb === "forget" ? /forgot: / : /confirmed: urn:pulumi:test::p::edis:test::web  upgrade  done/);
        const recorded = await up(held, { ...web1, planId: 102 });
        expect(verb === "forget" || recorded.e.log.includes("not sent again")).toBe(true);
        expect([sim.calls("add/upgrade").length, sim.account.state.upgrades.length, recorded.held.outs.planId]).toEqual([...after, 102]);
    });

    test.each([
        ["cancel/product", "in words only", { status: "success", message: "Service 999 has been cancelled" }],
        ["cancel/product", "as a KVM record", { status: "success", kvm: { id: "kvm_199999_000000" } }],
        ["cancel/product", "as a bare id", { status: "success", data: { id: 999 } }],
        ["cancel/product", "in its serviceid field", { status: "success", serviceid: 999, clientid: 7 }],
        ["add/upgrade", "in words only", { status: "success", message: "Service 999 upgraded to KVM M" }],
    ])("a %s 'success' that names another server %s, or none in its serviceid field, is no answer about this one: state keeps what EDIS has", async (endpoint, _how, json) => {
        sim.inject({ endpoint, json });
        const e = next();
        const failure = endpoint === "cancel/product" ? await e.failure(e.destroy(kvmServerOn(e.core), held)) : await upFails(held, { ...web1, planId: 102 });
        expect(failure).toContain("it is not taken as an answer about this server");
        expect(billed()).toEqual([Number(held.id)]);
        expect(sim.account.state.services[0].pid).toBe(101);
    });

    test.each([
        ["echoing the request", (id: string) => ({ status: "success", serviceid: null, request: `serviceid=${id}&type=Immediate` })],
        ["in words", (id: string) => ({ status: "success", message: `Your request for serviceid=${id} is pending review` })],
        ["in another field", (id: string) => ({ status: "success", result: { relid: Number(id) } })],
        ["in a nested record", (id: string) => ({ status: "success", data: { serviceid: Number(id) } })],
    ])("a cancel/product 'success' that names this server only %s, not in its serviceid field, cancels nothing here", async (_how, json) => {
        sim.inject({ endpoint: "cancel/product", json: json(held.id) });
        const e = next();
        expect(await e.failure(e.destroy(kvmServerOn(e.core), held))).toContain("does not name service");
        expect(billed()).toEqual([Number(held.id)]);
    });

    test("a cancel answer that names the server in its serviceid field is one, whatever its words say of dates and other numbers", async () => {
        const message = `Service ${held.id} (order 5001, invoice 9002) cancelled. Last day of service 31 January 2027; end of service: 31.01.2027`;
        sim.inject({ endpoint: "cancel/product", processed: true, json: { status: "success", serviceid: Number(held.id), clientid: 7, message } });
        const e = next();
        await e.destroy(kvmServerOn(e.core), held);
        expect(billed()).toEqual([]);
    });

    test("an unknown plan change of another server the resource held (a replacement's old half) blocks a plan change, naming that server, until resolved", async () => {
        const e = next();
        const other = { kind: "upgrade" as const, state: "unknown" as const, key: held.inputs.__resourceKey as string, hostname: web1.hostname, sentAt: "then", serviceId: 4242, kvmId: "kvm_4242_1", fromPlanId: 101, toPlanId: 102, billingCycle: "monthly" as const };
        await e.core.journal().write(other);
        const blocked = await e.failure(e.up(kvmServerOn(e.core), held, { ...web1, planId: 102 }));
        expect(blocked).toContain("an earlier change of service 4242 (kvm_4242_1), a server this resource held before web1.example.com (service 1003), to plan 102");
        expect(sim.calls("add/upgrade")).toEqual([]);
        await runNamedCommand(blocked, "forget");
        expect((await up(held, { ...web1, planId: 102 })).held.outs.planId).toBe(102);
    });

});

test.each([
    ["an add-on's service id in a record before the documented field", (a: Record<string, unknown>) => ({ status: a.status, addons: [{ serviceid: 9999, orderid: 7777 }], ...a }), "holds"],
    ["a service id dumped in a string beside it", (a: Record<string, unknown>) => ({ ...a, debug: "addon created: serviceid=9999" }), "holds"],
    ["an add-on's service id in a list before the documented field, as a failure", (a: Record<string, unknown>) => ({ services: [9999], ...a, status: "error" }), "holds"],
    ["the documented record in an envelope, after an add-on's record", (a: Record<string, unknown>) => ({ status: a.status, addons: [{ serviceid: 9999 }], data: a }), "holds"],
    ["an add-on's service id beside a serviceids that cannot be read", (a: Record<string, unknown>) => ({ addons: [{ serviceid: 9999 }], ...a, serviceids: "n/a" }), "unknown"],
    ["an add-on's service id and no serviceids field (the server's under another name)", (a: Record<string, unknown>) => ({ status: a.status, orderid: a.orderid, invoiceid: a.invoiceid, addons: [{ serviceid: 9999 }], service_ids: a.serviceids }), "unknown, named"],
    ["an add-on's serviceids and the server's, each in its own record", (a: Record<string, unknown>) => ({ status: a.status, addon: { serviceids: "9999" }, result: { orderid: a.orderid, serviceids: a.serviceids } }), "unknown, named"],
])("an add/order answer naming another service beside serviceids (%s): the resource holds only the service serviceids names, the other is recorded", async (_how, rewrite, outcome) => {
    const readable = outcome === "holds";
    sim.inject({ endpoint: "add/order", rewrite });
    const e = next();
    const error = await e.up(kvmServerOn(e.core), undefined, { ...web1, provisioningTimeoutSeconds: 1 }).then(() => "", (x: Error) => x.message);
    const { serviceId, orderId } = sim.account.state.services[0];
    const entries = await e.core.journal().list();
    if (!readable) expect(error).toMatch(/it named service (\d+, )*9999\b.* elsewhere, recorded in the order journal as extra/);
    expect(entries.find((x) => x.kind === "order")).toMatchObject(readable ? { serviceId, orderId } : { state: "unknown", orderId });
    expect(entries.find((x) => x.kind === "extra")?.serviceIds).toContain(9999);
    if (outcome === "unknown, named") expect(entries.find((x) => x.kind === "extra")?.serviceIds).toContain(serviceId);
    expect(sim.calls("add/order")).toHaveLength(1);
});

test.each([
    ["in a map keyed by it", (a: Record<string, unknown>) => ({ status: "success", orderid: a.orderid, invoiceid: a.invoiceid, services: { [String(a.serviceids)]: { status: "Pending" } } }), "extra"],
    ["only in words", (a: Record<string, unknown>) => ({ status: "success", orderid: a.orderid, invoiceid: a.invoiceid, message: `Service #${String(a.serviceids)} created` }), "unknown"],
])("an add/order answer that names its service %s is an order: the service is named, and nothing is ordered again", async (_how, rewrite, state) => {
    sim.inject({ endpoint: "add/order", rewrite });
    const e = next();
    const outcome = await e.up(kvmServerOn(e.core), undefined, web1).then((r) => `created ${r.held.id}`, (x: Error) => x.message);
    const serviceId = sim.account.state.services[0].serviceId;
    expect(outcome).toContain(String(serviceId));
    expect(JSON.stringify(await e.core.journal().list())).toContain(state === "extra" ? `"serviceIds":[${serviceId}]` : `service ${serviceId}`);
    await next().up(kvmServerOn(e.core), undefined, web1).catch(() => undefined);
    expect(sim.calls("add/order")).toHaveLength(1);
});

test("one listing entry that holds the account's e-mail or password affects only itself: another server's get/auth entry (its signature), a location's name", async () => {
    const { email, password } = sim.account.state;
    const stranger = { api_host: "kvm9.example.net", kvm_id: "kvm_999_1", signature: password };
    sim.inject({ endpoint: "get/auth", times: 20, rewrite: (a) => ({ ...a, data: { ...(a.data as object), kvm_999_1: stranger, kvm_998_1: { ...stranger, kvm_id: "kvm_998_1", api_host: undefined } } }) });
    sim.inject({ endpoint: "get/locations", times: 20, rewrite: (a) => ({ ...a, locations: { ...(a.locations as object), [`Office of ${email}`]: { id: 99, headline: "x" } } }) });
    const { held } = await up(undefined);
    const e = next();
    expect((await e.refresh(kvmServerOn(e.core), held))!.outs).toMatchObject({ kvmId: held.outs.kvmId, description: web1.hostname });
    expect(e.log).not.toContain(password);
    expect(billed()).toEqual([Number(held.id)]);
});

test("one entry of get/locations that cannot be read affects only what may be there: a plan found elsewhere is ordered; one found nowhere is 'cannot tell', naming it", async () => {
    const soon = (a: Record<string, unknown>) => ({ ...a, locations: { ...(a.locations as object), "Coming soon": { id: "", headline: "soon" } } });
    sim.inject({ endpoint: "get/locations", times: 100, rewrite: soon });
    const { held } = await up(undefined);
    expect(held.id).toBe(String(sim.account.state.services[0].serviceId));
    const e = next();
    const notFound = await e.failure(e.up(kvmServerOn(e.core), undefined, { ...web1, hostname: "web2.example.com", planId: 424242 }, "web2"));
    expect(notFound).toContain("whether it is sold at the location Coming soon (");
    expect(notFound).toContain("cannot be told");
    expect(writes()).toEqual(["add/order"]);
});

test("the holder record keeps every holder before an adoption, the same URN too: no adopter's delete cancels the server until the user says each let it go", async () => {
    const { held: web } = await up(undefined);
    const adopt = async (name: string) => {
        const e = next();
        return (await e.up(kvmServerOn(e.core), undefined, { ...web1, adoptKvmId: web.outs.kvmId }, name)).held;
    };
    // twin adopts it (web still holds it), is let go with `pulumi state delete`, and third adopts it.
    await adopt("twin");
    const third = await adopt("third");
    const e = next();
    const refused = await e.failure(e.destroy(kvmServerOn(e.core), third));
    expect(refused).toMatch(/was adopted by this resource from urn:\S+::web, urn:\S+::twin, which may still hold it/);
    // web's own delete names every other holder the record has, not only the last: its forget would clear them all.
    expect(await e.failure(e.destroy(kvmServerOn(e.core), web))).toMatch(/is also held by urn:\S+::third, urn:\S+::twin; it was not cancelled/);
    // The same URN again (another stack of that name, or web let go and declared anew): its token is web's, and still refused.
    const again = await adopt("web");
    expect(await e.failure(e.destroy(kvmServerOn(e.core), again))).toContain(":web is this resource's URN: an earlier declaration of it");
    expect(billed()).toEqual([Number(web.id)]);
    await runNamedCommand(refused, "forget");
    await next().destroy(kvmServerOn(e.core), again);
    expect(billed()).toEqual([]);
});

test("an import (a read with no outputs, in its own process) of a server another resource holds is refused, naming the holder; the holder's delete then cancels it once", async () => {
    const { held: web } = await up(undefined);
    const copy = "urn:pulumi:test::p::edis:index:KvmServer::copy";
    const e = next();
    const refused = await e.failure(kvmServerOn(e.core).read(web.id, { __resourceKey: copy }));
    expect(refused).toMatch(/is held by urn:\S+::web \(the order journal's holder record\), so urn:\S+::copy may not take it too/);
    const d = next();
    await d.destroy(kvmServerOn(d.core), web);
    expect(sim.calls("cancel/product")).toHaveLength(1);
    expect(billed()).toEqual([]);
});

test("a plan change declared while the server waits for payment is not in state until it is made: state keeps the plan EDIS bills, and the change is sent once paid", async () => {
    sim.behaviour.unpaidInvoices = true;
    const unpaid = (await up(undefined, { ...web1, provisioningTimeoutSeconds: 1 })).held;
    const waiting = (await up(unpaid, { ...web1, planId: 102, provisioningTimeoutSeconds: 1 })).held;
    expect(waiting.initError).toContain("unpaid");
    expect(waiting.outs.planId).toBe(101);
    sim.behaviour.unpaidInvoices = false;
    for (const invoice of sim.account.state.invoices) sim.account.payInvoice(invoice.invoiceId);
    const paid = await up(waiting, { ...web1, planId: 102 });
    expect(paid.held.outs).toMatchObject({ planId: 102, listPrice: { monthly: 8 } });
    expect(sim.calls("add/upgrade").map((c) => c.fields.newpid)).toEqual([102]);
    expect(sim.account.state.services.find((s) => String(s.serviceId) === paid.held.id)?.pid).toBe(102);
});

test("a create the engine lost whose server is gone at EDIS orders nothing in that run: the next run's order is checked like any other (edis:maxNewServers, the spend limit)", async () => {
    await up(undefined); // returned, its checkpoint never saved: the journal's entry is "created", and no state holds it
    sim.account.cancelService(sim.account.state.services[0], "Immediate");
    sim.clearLog();
    const limited = { ...config, "edis:maxNewServers": "0" };
    const e = new InProcess(limited);
    expect(await e.failure(e.up(kvmServerOn(e.core), undefined, web1))).toContain("is gone at EDIS; its journal entry is dropped. Nothing was ordered");
    const again = new InProcess(limited);
    expect(await again.failure(again.up(kvmServerOn(again.core), undefined, web1))).toContain("allows 0: it is not ordered");
    expect(writes()).toEqual([]);
    expect((await up(undefined)).step).toBe("create");
    expect(writes()).toEqual(["add/order"]);
});

test("a plan change another stack made (dev's, still in the journal) does not stop this stack's own (prod's)", async () => {
    const at = (stack: string) => ({ ...web1, __resourceKey: `urn:pulumi:${stack}::p::edis:test::web` });
    const dev = (await up(undefined, at("dev"))).held;
    await up(dev, at("dev")); // its diff settles its order entry, as the program does once the engine saved it
    const prod = (await up(undefined, { ...at("prod"), hostname: "web2.example.com" })).held;
    await up(dev, { ...at("dev"), planId: 102 });
    expect((await up(prod, { ...at("prod"), hostname: "web2.example.com", planId: 102 })).held.outs.planId).toBe(102);
    expect(sim.calls("add/upgrade")).toHaveLength(2);
});

test("an order whose answer was lost is resolved by adopting its server, never another one: adopting a KVM described as another host keeps the entry, and says so", async () => {
    const first = next();
    const spare = (await first.up(kvmServerOn(first.core), undefined, { ...web1, hostname: "spare.example.com" }, "spare")).held;
    sim.inject({ endpoint: "add/order", drop: "after" });
    const lost = next();
    await lost.failure(lost.up(kvmServerOn(lost.core), undefined, web1));
    const adopting = (await up(undefined, { ...web1, adoptKvmId: spare.outs.kvmId })).e;
    expect(adopting.log).toContain("warning: the order journal keeps the order for web1.example.com");
    expect((await adopting.core.journal().list()).find((x) => x.kind === "order" && x.hostname === "web1.example.com")).toMatchObject({ state: "unknown" });
});

test("an unpaid server that is destroyed instead is cancelled, with edis:cancellationType where the input is unset", async () => {
    sim.behaviour.unpaidInvoices = true;
    const { held } = await up(undefined);
    expect(held.initError).toContain("is unpaid");
    const e = new InProcess({ ...config, "edis:cancellationType": "Immediate" });
    await e.destroy(kvmServerOn(e.core), held);
    expect(sim.calls("cancel/product").map((c) => c.fields.type)).toEqual(["Immediate"]);
});

test("a plan from another location, a foreign OS and add-ons, a group the plan lacks: one error each listing all, no order", async () => {
    expect(await upFails(undefined, { ...web1, planId: 301, locationId: 1 })).toContain("planId 301 belongs to London, United Kingdom (locationId 3), not to Frankfurt, Germany (locationId 1)");
    const text = await upFails(undefined, { planId: 301, osId: 1122, hostname: "b.example.com", billingCycle: "annually", additionalRamId: 2201, diskBoostId: 2301 });
    expect(text).toContain("osId 1122 is not an operating system of plan 301 (KVM S); allowed: 1011 (Debian 11 (64bit))");
    expect(text).toContain("additionalRamId 2201 is not a RAM add-on of plan 301 (KVM S); allowed: 2000 (no additional RAM), 2001 (+1024 MB RAM), 2002");
    expect(text).toContain("diskBoostId 2301 is not a disk boost add-on of plan 301 (KVM S); allowed: none");
    expect(sim.calls("add/order")).toEqual([]);
});

test("an unknown adoptKvmId is a clear error", async () => {
    expect(await upFails(undefined, { ...web1, adoptKvmId: "kvm_000000_000000" })).toContain('adoptKvmId "kvm_000000_000000" is not a KVM of this EDIS account');
});

describe("faults", () => {
    test.each([
        ["get/products", 500],
        ["get/paymentmethods", 503],
        ["get/kvmid", 503],
        ["get/auth", 500],
    ])("%s answering %i twice during up: the create succeeds after the waits it was told", async (endpoint, status) => {
        sim.inject({ endpoint, status, times: 2 });
        const { e, held } = await up(undefined);
        expect(e.text.filter((l) => l.includes(`EDIS ${endpoint}: server_error (HTTP ${status}), retry`))).toHaveLength(2);
        expect(held.id).toBe(String(sim.account.state.services[0].serviceId));
        expect(sim.account.state.orders).toHaveLength(1);
    });

    test("a server already cancelled behind Pulumi's back: the delete succeeds, after EDIS confirms it is gone", async () => {
        const { held } = await up(undefined);
        sim.account.cancelService(sim.account.state.services[0], "Immediate");
        const e = next();
        await e.destroy(kvmServerOn(e.core), held);
        expect(e.log).toMatch(/was not cancelled by this request \(EDIS cancel\/product: .*\), but it is gone at EDIS \(EDIS get\/kvmid: .*EDIS get\/serviceid: .*\); removing it from state/);
        expect(sim.account.state.cancellations.map((c) => c.type)).toEqual(["Immediate"]);
    });

    test.each([
        ["an unreadable kvm_id", (kvm: string) => ({ id: kvm })],
        ["no kvm_id", () => undefined],
    ])("a server whose own listing entry is under another key, with %s, cannot be told: it is not concluded gone, though both lookups refuse it", async (_how, kvmIdOf) => {
        const { held } = await up(undefined);
        const kvm = String(held.outs.kvmId);
        const moved = (a: Record<string, unknown>) => {
            const { [kvm]: own, ...rest } = a.data as Record<string, object>;
            return { ...a, data: { ...rest, "0": { ...own, kvm_id: kvmIdOf(kvm) } } };
        };
        const notFound = { status: 404, json: { status: "error", message: "Not found" }, times: 10 };
        sim.inject({ endpoint: "get/auth", times: 20, rewrite: moved });
        sim.inject({ endpoint: "get/kvmid", ...notFound });
        sim.inject({ endpoint: "get/serviceid", ...notFound });
        const e = next();
        expect((await e.refresh(kvmServerOn(e.core), held))!.id).toBe(held.id);
        expect(e.log).toContain(`an entry of the account's listing (get/auth) cannot be read and may be ${kvm}'s`);
    });

    test("a value EDIS answered that holds the password (a KVM id, a description) is kept nowhere: not in state, a log line or an error", async () => {
        const { held } = await up(undefined);
        const { password } = sim.account.state;
        const described = (a: Record<string, unknown>) => ({ ...a, data: Object.fromEntries(Object.entries(a.data as Record<string, object>).map(([k, v]) => [k, { ...v, description: `web ${password}` }])) });
        sim.inject({ endpoint: "get/auth", times: 20, rewrite: described });
        sim.inject({ endpoint: "get/kvmid", times: 20, rewrite: (a) => ({ ...a, kvmid: `kvm_${password}` }) });
        const e = next();
        // Its own entry tells nothing: kept as it was, with a warning; then asked for its KVM, which is not kept either.
        expect((await e.refresh(kvmServerOn(e.core), held))!.outs.description).toBe(held.outs.description);
        const kvmless = (await e.refresh(kvmServerOn(e.core), { ...held, outs: { ...held.outs, kvmId: undefined } }))!;
        expect(kvmless.outs.kvmId).toBeUndefined();
        expect(e.log).toContain("holds the account's e-mail or password");
        expect(e.log).toContain("cannot be read: it holds a secret");
        expect(e.log).not.toContain(password);
    });

    test.each([
        ["Pa$$w0rd!!&+", (pw: string) => [pw, new URLSearchParams({ pw }).toString(), pw.replace(/&/g, "&amp;")]],
        ["my pass 1", (pw: string) => [`pw=${pw.replace(/ /g, "+")}`, pw.toUpperCase()]],
        ["Secret=42!", (pw: string) => [pw, `login ${pw}`, [...pw].map((c) => `${c}\u0000`).join(""), [...pw].join("\u0001"), [...pw].join("\u200b"), [...pw].join("\u00ad")]],
        ["P@$$w0rd!", (pw: string) => [pw, encodeURIComponent(pw), JSON.stringify(pw).replace(/\//g, "\\/")]],
        ["Straße!", (pw: string) => [pw.toUpperCase()]],
    ])("the password %s echoed in a value, as given or escaped, is kept nowhere; the e-mail's local part in a host name is no secret", async (password, echoes) => {
        await sim.stop();
        ({ sim, next } = await simulatorAndCore({ email: "acmecorp@gmail.com", password }));
        const { held } = await up(undefined, { ...web1, hostname: "web1.acmecorp.com" });
        const e = next();
        const read = (await e.refresh(kvmServerOn(e.core), held))!.outs;
        expect([read.description, read.notListed]).toEqual(["web1.acmecorp.com", undefined]);
        // A callback password of 6 characters that a host name spells is no reason to hide the server.
        await e.up(trafficAlertOn(e.core), undefined, { kvmId: held.outs.kvmId, callbackUrl: "https://hooks.example.com/edis", triggerPercent: 80, callbackUser: "edis", callbackPassword: "acmeco" }, "alert");
        expect((await e.refresh(kvmServerOn(e.core), held))!.outs.notListed).toBeUndefined();
        for (const echo of [...echoes(password), "owner ACMECORP@gmail.com"]) {
            sim.clearFaults();
            sim.inject({ endpoint: "get/auth", times: 20, rewrite: (a) => ({ ...a, data: Object.fromEntries(Object.entries(a.data as Record<string, object>).map(([k, v]) => [k, { ...v, description: `web1 ${echo}` }])) }) });
            sim.inject({ endpoint: "get/kvmid", times: 20, rewrite: (a) => ({ ...a, kvmid: `kvm_${echo}` }) });
            expect((await e.refresh(kvmServerOn(e.core), held))!.outs.description).toBe("web1.acmecorp.com");
            expect((await e.refresh(kvmServerOn(e.core), { ...held, outs: { ...held.outs, kvmId: undefined } }))!.outs.kvmId).toBeUndefined();
            expect([echo, e.log.includes(echo)]).toEqual([echo, false]);
        }
    });

    test.each([
        ["Debian12!", "ops@example.com", "web1.example.com"],
        ["Debian!1", "ops@example.com", "web1.example.com"],
        ["Frankfurt!", "ops@example.com", "web1.example.com"],
        ["edis-demo-password", "mail@example.com", "mail.example.com"],
    ])("the password %s and e-mail %s, whose letters ordinary names share (an OS, a location, the host name %s), order and read back as any other", async (password, email, hostname) => {
        await sim.stop();
        ({ sim, next } = await simulatorAndCore({ email, password }));
        const { held } = await up(undefined, { ...web1, hostname });
        expect([held.id, held.outs.description]).toEqual([String(sim.account.state.services[0].serviceId), hostname]);
    });

    test("a host that answers an HTML 404 to everything: read and delete fail and keep the server", async () => {
        const { held } = await up(undefined);
        sim.inject({ endpoint: "*", status: 404, body: "html", times: 1000 });
        const e = next();
        expect(await e.failure(e.refresh(kvmServerOn(e.core), held))).toContain(
            "EDIS get/auth: unexpected answer (HTTP 404); the answer was an HTML page, not JSON; is the URL right (config `edis:baseUrl` / `edis:authUrl`)?",
        );
        expect(await e.failure(e.destroy(kvmServerOn(e.core), held))).toContain("EDIS cancel/product: unexpected answer (HTTP 404)");
        expect(billed()).toEqual([Number(held.id)]);
        sim.clearFaults();
        await e.destroy(kvmServerOn(e.core), held);
        expect(billed()).toEqual([]);
    });
});

describe("what an answer means (one classifier)", () => {
    test("a server with no KVM yet (unpaid) is not taken as gone on one '404 KVM not found': read and delete both keep it", async () => {
        sim.behaviour.unpaidInvoices = true;
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

describe("the catalogue", () => {
    test("a location that get/locations marks out of stock is refused before ordering, naming those in stock", async () => {
        sim.inject({
            endpoint: "get/locations",
            rewrite: (a) => {
                const locations = a.locations as Record<string, Record<string, unknown>>;
                return { ...a, locations: { ...locations, "Frankfurt, Germany": { ...locations["Frankfurt, Germany"], out_of_stock: true } } };
            },
        });
        expect(await upFails(undefined)).toContain("Frankfurt, Germany (locationId 1) is out of stock (get/locations says so); locations in stock: Vienna, Austria (locationId 2)");
        expect(writes()).toEqual([]);
    });

    test("the plan's own 'no additional RAM' add-on instead of none is no change, either way, in check too: nothing priced, counted or refused", async () => {
        const { held } = await up(undefined);
        // Limits that any counted change would pass: the check must count none.
        const limited = new InProcess({ ...config, "edis:maxAddedMonthlySpend": "1 EUR", "edis:maxNewServers": "0" });
        const noExtra = await limited.up(kvmServerOn(limited.core), held, { ...web1, additionalRamId: 2000 });
        expect(noExtra.step).toBe("same");
        expect(limited.log).not.toContain("replaced");
        const withAddon = { ...held, inputs: { ...held.inputs, additionalRamId: 2000 }, outs: { ...held.outs, additionalRamId: 2000 } };
        expect((await up(withAddon)).step).toBe("same");
        expect(writes()).toEqual(["add/order"]);
    });

    test("a replacement whose new order the catalogue refutes is refused by check, before any step (so before any cancel, deleteBeforeReplace or not)", async () => {
        const { held } = await up(undefined);
        expect(await upFails(held, { ...web1, osId: 9999 })).toContain("osId 9999 is not an operating system of plan 101 (KVM S)");
        expect(sim.account.state.cancellations).toEqual([]);
        expect(writes()).toEqual(["add/order"]);
        expect(billed()).toHaveLength(1);
    });
});
