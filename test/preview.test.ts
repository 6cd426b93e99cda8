// What a preview's check refuses before ordering (provider/kvm/preflight.ts); test/cli shows it in a real preview.
import { kvmServerOn } from "../provider/kvm/provider";
import { EdisSimulator } from "../simulator/server";
import { Held, InProcess, simulatorAndCore } from "./support/inProcess";

const web = { planId: 101, osId: 1012, hostname: "web1.example.com" };

let sim: EdisSimulator;
let config: Record<string, string>;
let next: () => InProcess;
beforeEach(async () => ({ sim, next, config } = await simulatorAndCore()));
afterEach(() => sim.stop());

/** The reasons check gives for one server, in a deployment with these settings. */
async function refused(inputs: Record<string, unknown>, settings: Record<string, string> = {}): Promise<string> {
    const e = new InProcess({ ...config, ...settings });
    const { failures = [] } = await kvmServerOn(e.core).check({}, inputs);
    expect(failures.length).toBeGreaterThan(0);
    expect(sim.calls("add/order")).toEqual([]);
    return failures.map((f) => f.reason).join("\n");
}

test.each([
    ["a plan that does not exist", { ...web, planId: 999 }, /planId 999 is not a product at any location; plans at .*: 101 \(KVM S\)/],
    ["a payment method the account lacks, as an input", { ...web, paymentMethod: "bitcoin" }, /paymentMethod "bitcoin" is not available to this account; available: credit, paypal, banktransfer/],
])("%s fails the check with the input, the problem and what is allowed", async (_title, server, expected) => {
    expect(await refused(server)).toMatch(expected);
});

test("a payment method from config that the account lacks names the config key", async () => {
    expect(await refused(web, { "edis:paymentMethod": "bitcoin" })).toContain('the payment method of config `edis:paymentMethod` (or EDIS_PAYMENT_METHOD) "bitcoin" is not available to this account');
});

test("an endpoint that does not answer (a simulator that is not running) fails the check naming the config keys (an error, not a failure of one input)", async () => {
    const e = new InProcess({ ...config, "edis:baseUrl": "http://127.0.0.1:9", "edis:authUrl": "http://127.0.0.1:9" });
    expect(await e.failure(kvmServerOn(e.core).check({}, web))).toMatch(/could not be checked against EDIS's catalogue.*edis:baseUrl/);
});

test("without credentials the check takes the inputs alone, passes, and says what it could not check", async () => {
    const e = new InProcess({ ...config, "edis:email": "", "edis:password": "" });
    const { failures = [] } = await kvmServerOn(e.core).check({}, { ...web, planId: 999 });
    expect(failures).toEqual([]);
    expect(e.log).toMatch(/orders and plan changes are checked for their inputs only: without config `edis:email` .* and config `edis:password`/);
    expect(sim.log).toEqual([]);
});

test("a server the journal holds an order for is not refused by a catalogue that changed since: its create takes it into state, ordering nothing", async () => {
    // The engine dies after the create answered, before its checkpoint: EDIS bills the server, the journal has it.
    const first = next();
    await first.up(kvmServerOn(first.core), undefined, web);
    // EDIS no longer sells the plan; a check of a new order would refuse it.
    sim.account.plans.splice(
        sim.account.plans.findIndex((p) => p.pid === 101),
        1,
    );
    const rerun = next();
    const { held } = await rerun.up(kvmServerOn(rerun.core), undefined, web);
    expect(sim.calls("add/order")).toHaveLength(1);
    expect(held.id).toBe(String(sim.account.state.services[0].serviceId));
});

test("an in-place change of a server whose create stopped after its order is not refused by a catalogue that changed: the update resumes it", async () => {
    sim.behaviour.unpaidInvoices = true;
    const first = next();
    const unpaid: Held = (await first.up(kvmServerOn(first.core), undefined, web)).held;
    expect(unpaid.initError).toContain("is unpaid");
    // A preview's diff finds the server in state and settles its journal entry: only state knows it now.
    const preview = next();
    await kvmServerOn(preview.core).diff(unpaid.id, unpaid.outs, unpaid.inputs);
    sim.behaviour.unpaidInvoices = false;
    sim.account.payInvoice(sim.account.state.invoices[0].invoiceId);
    // EDIS no longer sells the plan, and the program changes only the payment method: nothing is ordered anew.
    sim.account.plans.splice(
        sim.account.plans.findIndex((p) => p.pid === 101),
        1,
    );
    const up = next();
    const resumed = await up.up(kvmServerOn(up.core), unpaid, { ...web, paymentMethod: "credit" });
    expect(resumed.step).toBe("update");
    expect(resumed.held.outs.kvmId).toEqual(expect.stringMatching(/^kvm_/));
    expect(sim.calls("add/order")).toHaveLength(1);
});
