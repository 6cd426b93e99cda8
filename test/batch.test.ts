// `edis:batchOrders`: an up's creates go in one add/order, with one order's money rules (provider/kvm/orderBatch.ts);
// creates run at once, as the engine makes them (support/inProcess.ts).
import { JournalClaimError, OrderJournal } from "../provider/journal";
import { kvmServerOn } from "../provider/kvm/provider";
import { EdisSimulator } from "../simulator/server";
import { Held, InProcess, simulatorAndCore } from "./support/inProcess";

const fleet = {
    web1: { planId: 101, osId: 1012, hostname: "web1.example.com" },
    web2: { planId: 101, osId: 1012, hostname: "web2.example.com" },
    db1: { planId: 102, osId: 1012, hostname: "db1.example.com" },
};

let sim: EdisSimulator;
let config: Record<string, string>;
let held: Record<string, Held>;

beforeEach(async () => {
    // A paid server has its KVM at EDIS's next answer: no test waits on the clock.
    ({ sim, config } = await simulatorAndCore({ provisioningDelayMs: 0 }, { "edis:batchOrders": "true" }));
    sim.account.state.credit = 1_000;
    held = {};
});
afterEach(() => sim.stop());

/** One `pulumi up` of these servers in a new provider process; what it holds after is kept for the next. */
async function up(declared: Record<string, Record<string, unknown>>, settings: Record<string, string> = {}): Promise<string[]> {
    const e = new InProcess({ ...config, ...settings });
    const result = await e.upAll(kvmServerOn(e.core), held, declared);
    held = result.held;
    return result.errors;
}

const orders = () => sim.calls("add/order");
/** Service id by host name, as EDIS holds them. */
const services = () => Object.fromEntries(sim.account.state.services.map((s) => [s.hostname, s.serviceId]));
/** Service id by host name, as the engine holds them. */
const inState = () => Object.fromEntries(Object.values(held).map((h) => [h.outs.hostname as string, Number(h.id)]));
/** The order entries of the journal whose outcome is unknown. */
const unresolved = async () => (await new InProcess(config).core.journal().list()).filter((e) => e.kind === "order" && (e.state === "unknown" || e.state === "sending"));
const itemsOf = (call: { fields: Record<string, unknown> }) => (JSON.parse(String(call.fields.order)) as { item: Array<{ hostname: string }> }).item.map((i) => i.hostname);
const withoutDescriptions = (answer: Record<string, unknown>) => ({
    ...answer,
    data: Object.fromEntries(Object.entries(answer.data as Record<string, object>).map(([kvm, entry]) => [kvm, { ...entry, description: null }])),
});
const reversed = (answer: Record<string, unknown>) => ({ ...answer, serviceids: String(answer.serviceids).split(",").reverse().join(",") });

/** A batch whose service ids EDIS answered reversed while the invoice was unpaid (no KVM to describe), then paid and provisioned. */
async function swappedWhileUnpaidThenPaid(): Promise<void> {
    sim.behaviour.unpaidInvoices = true;
    sim.inject({ endpoint: "add/order", rewrite: reversed });
    expect(await up(fleet)).toHaveLength(3);
    sim.behaviour.unpaidInvoices = false;
    for (const invoice of sim.account.state.invoices) sim.account.payInvoice(invoice.invoiceId);
    sim.account.advance();
}

test("different billing cycles are different orders; without batchOrders each server is its own order", async () => {
    expect(await up({ ...fleet, db1: { ...fleet.db1, billingCycle: "quarterly" } })).toEqual([]);
    expect(
        orders()
            .map((o) => itemsOf(o).length)
            .sort(),
    ).toEqual([1, 2]);
    sim.clearLog();
    const more = { web3: { ...fleet.web1, hostname: "web3.example.com" }, web4: { ...fleet.web1, hostname: "web4.example.com" } };
    expect(await up({ ...fleet, db1: { ...fleet.db1, billingCycle: "quarterly" }, ...more }, { "edis:batchOrders": "false" })).toEqual([]);
    expect(orders().map((o) => itemsOf(o).length)).toEqual([1, 1]);
});

test("an answer lost after EDIS made the order: every member stays blocked and nothing is ordered twice; adopting resolves each", async () => {
    sim.inject({ endpoint: "add/order", drop: "after" });
    expect(await up(fleet)).toHaveLength(3);
    expect(orders()).toHaveLength(1);
    const made = services();
    expect(Object.keys(made).sort()).toEqual(["db1.example.com", "web1.example.com", "web2.example.com"]);
    expect((await up(fleet)).length).toBeGreaterThanOrEqual(1);
    expect(orders()).toHaveLength(1);
    expect(await unresolved()).toHaveLength(3);
    // The user finds the servers by description and adopts each on its own resource.
    sim.account.advance();
    const kvmOf = (hostname: string) => sim.account.state.services.find((s) => s.hostname === hostname)!.kvmId;
    expect(await up(Object.fromEntries(Object.entries(fleet).map(([name, s]) => [name, { ...s, adoptKvmId: kvmOf(s.hostname) }])))).toEqual([]);
    expect(orders()).toHaveLength(1);
    expect(inState()).toEqual(made);
    // EDIS does not report an adopted server's plan: it has no list price.
    expect(Object.values(held).map((h) => h.outs.listPrice)).toEqual([undefined, undefined, undefined]);
});

test("serviceids naming fewer services than items, beside an add-on's service: the members past it are unknown (none takes the add-on's), which is recorded", async () => {
    sim.inject({ endpoint: "add/order", rewrite: (a) => ({ status: a.status, addons: [{ serviceid: 9999 }], ...a, serviceids: String(a.serviceids).split(",")[0] }) });
    const errors = await up(Object.fromEntries(Object.entries(fleet).map(([n, s]) => [n, { ...s, provisioningTimeoutSeconds: 1 }])));
    const [first, ...rest] = itemsOf(orders()[0]);
    const unknown = errors.filter((e) => e.includes("may or may not have been made"));
    expect(rest.map((h) => unknown.filter((e) => e.startsWith(`the order for ${h} `)).length)).toEqual([1, 1]);
    expect(errors.filter((e) => e.includes(`${first} (service ${services()[first]}) is provisioned`) && e.includes("service 9999 belongs to no resource"))).toHaveLength(1);
    expect(inState()).toEqual({ [first]: services()[first] });
    expect(await unresolved()).toHaveLength(2);
    const journal = await new InProcess(config).core.journal().list();
    expect(journal.filter((e) => e.kind === "extra").flatMap((e) => (e as { serviceIds: number[] }).serviceIds)).toEqual([9999]);
    expect(orders()).toHaveLength(1);
});

test("members whose create fails after the order (unpaid invoice) are held with their service ids; paying resumes them without a second order", async () => {
    sim.behaviour.unpaidInvoices = true;
    const errors = await up(fleet);
    expect(errors).toHaveLength(3);
    for (const e of errors) expect(e).toContain("is unpaid");
    expect(inState()).toEqual(services());
    sim.behaviour.unpaidInvoices = false;
    for (const invoice of sim.account.state.invoices) sim.account.payInvoice(invoice.invoiceId);
    expect(await up(fleet)).toEqual([]);
    expect(orders()).toHaveLength(1);
    expect(Object.values(held).every((h) => typeof h.outs.kvmId === "string")).toBe(true);
    // A create finished by a later update gets its list price then.
    expect(Object.values(held).map((h) => (h.outs.listPrice as { billingCycle?: string } | undefined)?.billingCycle)).toEqual(["monthly", "monthly", "monthly"]);
});

test("service ids EDIS answers in another order than the items: each member that got another's server fails naming both, and is held", async () => {
    sim.inject({ endpoint: "add/order", rewrite: reversed });
    const errors = await up(fleet);
    expect(orders()).toHaveLength(1);
    // The middle item maps to itself; the first and the last got each other's.
    expect(errors).toHaveLength(2);
    for (const e of errors) {
        const [, taken, described] = /is held by (\S+) because of its place in order \d+ \(batch [0-9a-f]{16}\), but EDIS describes that KVM as "(\S+)"/.exec(e)!;
        expect(taken).not.toBe(described);
    }
    // Nothing is lost: all three billed servers are held, none ordered twice.
    expect(Object.values(inState()).sort()).toEqual(Object.values(services()).sort());
    // The check is not a one-off: the next up fails the same way, and nothing is ordered.
    expect((await up(fleet)).join("\n")).toMatch(/describes that KVM as/);
    expect(orders()).toHaveLength(1);
    // Removing a swapped server from the program cancels nothing: its service may be another resource's.
    const swapped = Object.keys(fleet).find((name) => Number(held[name].id) !== services()[fleet[name as keyof typeof fleet].hostname])!;
    expect((await up(Object.fromEntries(Object.entries(fleet).filter(([name]) => name !== swapped)))).join("\n")).toMatch(/describes that KVM as .*Nothing is changed or cancelled on it/);
    expect(sim.calls("cancel/product")).toHaveLength(0);
});

test("a swap found only after the create (the invoice was unpaid then): a delete without a refresh, the refresh and the update each fail naming both, and nothing acts on the servers", async () => {
    await swappedWhileUnpaidThenPaid();
    // The state has no KVM for any of them: the delete asks EDIS for it and reads its description before any cancel.
    const swapped = Object.keys(fleet).find((name) => Number(held[name].id) !== services()[fleet[name as keyof typeof fleet].hostname])!;
    const remaining = Object.fromEntries(Object.entries(fleet).filter(([name]) => name !== swapped));
    expect((await up(remaining)).join("\n")).toMatch(new RegExp(`is held by ${fleet[swapped as keyof typeof fleet].hostname.replace(/\./g, "\\.")} .*describes that KVM as`));
    expect(sim.calls("cancel/product")).toHaveLength(0);
    const e = new InProcess(config);
    const reads = await Promise.all(
        Object.values(held).map((h) =>
            e.refresh(kvmServerOn(e.core), h).catch((err: Error) => err.message),
        ),
    );
    expect(reads.join("\n")).toMatch(/describes that KVM as/);
    expect((await up(fleet)).join("\n")).toMatch(/describes that KVM as/);
    expect(orders()).toHaveLength(1);
    expect(sim.calls("cancel/product")).toHaveLength(0);
});

test.each([
    ["get/kvmid answers an HTML 404", { endpoint: "get/kvmid", status: 404, body: "html" as const }],
    ["get/kvmid refuses with words that say to try again, on every retry", { endpoint: "get/kvmid", times: 10, json: { status: "error", message: "System maintenance, please try again later" } }],
    ["the listing describes no KVM", { endpoint: "get/auth", times: 5, json: { status: "success", data: {} } }],
    ["the listing gives the KVM no description", { endpoint: "get/auth", times: 5, rewrite: withoutDescriptions }],
])("a swapped member whose place no description confirmed is not deleted when %s: it fails saying what to do, and nothing is cancelled", async (_, fault) => {
    await swappedWhileUnpaidThenPaid();
    sim.inject(fault);
    const e = new InProcess(config);
    const error = await e.failure(e.destroy(kvmServerOn(e.core), held.web1));
    expect(error).toMatch(/is held by web1\.example\.com because of its place in order \d+ \(batch [0-9a-f]{16}\), and no description of its KVM has confirmed that/);
    expect(error).toContain("Nothing was changed or cancelled");
    expect(error).toContain("pulumi state delete 'urn:pulumi:");
    expect(error).toContain("to keep it, set its description there to web1.example.com");
    expect(sim.calls("cancel/product")).toHaveLength(0);
});

test("one listing entry whose kvm_id is another KVM's answers for neither: a swapped member is never confirmed by it, and nothing is cancelled", async () => {
    await swappedWhileUnpaidThenPaid();
    const kvmOf = (serviceId: number) => sim.account.state.services.find((s) => s.serviceId === serviceId)!.kvmId!;
    const [own, other] = [kvmOf(services()["web1.example.com"]), kvmOf(Number(held.web1.id))];
    // web1's own entry, first in the listing, says it is the KVM of the service web1 was given by its place.
    const odd = (answer: Record<string, unknown>) => {
        const { [own]: entry, ...rest } = answer.data as Record<string, object>;
        return { ...answer, data: { [own]: { ...entry, kvm_id: other }, ...rest } };
    };
    sim.inject({ endpoint: "get/auth", times: 1000, rewrite: odd });
    expect((await up(fleet)).join("\n")).toContain("cannot be read");
    expect(held.web1.outs.kvmId).toBeUndefined();
    const e = new InProcess(config);
    expect(await e.failure(e.destroy(kvmServerOn(e.core), held.web1))).toContain("its kvm_id is not the entry's key");
    expect(sim.calls("add/upgrade").length + sim.calls("cancel/product").length).toBe(0);
});

test("a plan change of a swapped member whose KVM the listing does not describe upgrades nothing; a refused login while looking for a KVM is reported as it is", async () => {
    await swappedWhileUnpaidThenPaid();
    const unprovisioned = held.web1;
    sim.inject({ endpoint: "get/auth", times: 20, rewrite: withoutDescriptions });
    expect((await up({ ...fleet, web1: { ...fleet.web1, planId: 103 } })).join("\n")).toContain("EDIS's listing does not describe its KVM yet");
    expect(sim.calls("add/upgrade")).toHaveLength(0);
    expect(held.web1.outs).toMatchObject({ planId: 101, kvmId: expect.any(String) });
    sim.inject({ endpoint: "get/kvmid", status: 401 });
    const e = new InProcess(config);
    expect(await e.failure(e.destroy(kvmServerOn(e.core), unprovisioned))).toMatch(/^EDIS get\/kvmid: the e-mail or password was refused/);
    expect(sim.calls("cancel/product")).toHaveLength(0);
});

test("a refresh that finds a swapped member's KVM undescribed keeps it marked: every plan shows it as a change, and the up fails instead of handing its KVM on", async () => {
    await swappedWhileUnpaidThenPaid();
    sim.inject({ endpoint: "get/auth", times: 1000, rewrite: withoutDescriptions });
    const e = new InProcess(config);
    const refreshed = (await e.refresh(kvmServerOn(e.core), held.web1))!;
    expect(refreshed.outs).toMatchObject({ kvmId: expect.stringMatching(/^kvm_/), __orderBatch: expect.any(String) });
    held.web1 = refreshed;
    expect((await kvmServerOn(e.core).diff(held.web1.id, held.web1.outs, { ...fleet.web1, __resourceKey: held.web1.inputs.__resourceKey })).changes).toBe(true);
    expect((await up(fleet)).join("\n")).toContain("is held by web1.example.com because of its place in order");
    expect(sim.calls("add/upgrade").length + sim.calls("cancel/product").length).toBe(0);
});

test("an unswapped batch whose listing lags behind provisioning: the creates fail in state, and the next up finishes them, priced, with one order", async () => {
    sim.inject({ endpoint: "get/auth", times: 1000, json: { status: "success", data: {} } });
    const errors = await up(fleet);
    expect(errors).toHaveLength(3);
    for (const error of errors) expect(error).toMatch(/EDIS's listing does not describe its KVM yet\. Nothing was changed.*It is in the stack's state\.$/s);
    sim.clearFaults();
    expect(await up(fleet)).toEqual([]);
    expect(orders()).toHaveLength(1);
    expect(Object.values(held).map((h) => [h.outs.__orderBatch, (h.outs.listPrice as { billingCycle?: string } | undefined)?.billingCycle])).toEqual([
        [undefined, "monthly"],
        [undefined, "monthly"],
        [undefined, "monthly"],
    ]);
});

test("a member never provisioned (EDIS names no KVM for it) is cancelled by its place in the order: nothing else can tell", async () => {
    sim.behaviour.unpaidInvoices = true;
    expect(await up(fleet)).toHaveLength(3);
    const e = new InProcess(config);
    await e.destroy(kvmServerOn(e.core), held.web1);
    expect(sim.calls("cancel/product").map((c) => Number(c.fields.serviceid))).toEqual([Number(held.web1.id)]);
});

test("two servers of one host name never share an order, so the description can tell every member apart", async () => {
    expect(await up({ a: { ...fleet.web1, hostname: "same.example.com" }, b: { ...fleet.db1, hostname: "same.example.com" }, c: fleet.web2 })).toEqual([]);
    const sizes = orders().map((o) => itemsOf(o));
    expect(sizes).toHaveLength(2);
    for (const items of sizes) expect(new Set(items).size).toBe(items.length);
});

test("a member that another deployment claims at the same moment: none of the batch is ordered, each says why, and the next up orders them together", async () => {
    const e = new InProcess(config);
    const journal = e.core.journal();
    const claim = journal.claim.bind(journal);
    journal.claim = async (entry) => {
        if (entry.hostname === fleet.web2.hostname) throw new JournalClaimError(`another deployment is sending the same order for ${entry.key}`);
        return claim(entry);
    };
    const first = await e.upAll(kvmServerOn(e.core), held, fleet);
    expect(orders()).toEqual([]);
    expect(first.errors.join("\n")).toContain("another deployment is sending the same order");
    expect(first.errors.join("\n")).toContain("nothing was ordered for web1.example.com: another server of its batch could not be claimed in the order journal");
    // Nothing was sent, so no entry stays to block the next up.
    expect(await unresolved()).toEqual([]);
    held = first.held;
    expect(await up(fleet)).toEqual([]);
    expect(orders().map((o) => itemsOf(o).sort())).toEqual([["db1.example.com", "web1.example.com", "web2.example.com"]]);
});

test.each([
    ["names none of its members' places (serviceids cannot be read)", "n/a", [9999]],
    ["places its members and names one more service", undefined, [9999]],
])("a batched order that %s: every id no member holds is recorded as an extra service before any member's outcome", async (_how, serviceids, extra) => {
    sim.inject({ endpoint: "add/order", rewrite: (a) => ({ addons: [{ serviceid: 9999 }], ...a, ...(serviceids ? { serviceids } : {}) }) });
    const seen = jest.spyOn(OrderJournal.prototype, "write");
    const errors = await up({ web1: fleet.web1, web2: fleet.web2 }, { "edis:provisioningTimeoutSeconds": "1" });
    if (serviceids) expect(errors.join("\n")).toContain("it named service 9999 elsewhere");
    const written = seen.mock.calls.map(([entry]) => `${entry.kind}:${entry.state}`);
    seen.mockRestore();
    expect(written.indexOf("extra:unclaimed")).toBeGreaterThanOrEqual(0);
    expect(written.indexOf("extra:unclaimed")).toBeLessThan(written.findIndex((k) => /^order:(ordered|unknown)$/.test(k)));
    const entries = await new InProcess(config).core.journal().list();
    expect(entries.find((x) => x.kind === "extra")).toMatchObject({ serviceIds: extra });
    expect(orders()).toHaveLength(1);
});
