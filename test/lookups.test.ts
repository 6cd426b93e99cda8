/** The SDK's lookups against the simulator, in the program process as a program calls them. */
import * as pulumi from "@pulumi/pulumi";
import * as edis from "../sdk";
import { EdisSimulator } from "../simulator/server";
import { failureMessage as rejection } from "./support/inProcess";
import { clientFor, startSimulator, stackConfigFor } from "./support/sim";

let sim: EdisSimulator;

beforeEach(async () => {
    // Provisioned on the second get/kvmid: counted, never timed.
    sim = await startSimulator({ provisioningDelayMs: 0, provisioningPolls: 1 });
    pulumi.runtime.setAllConfig(stackConfigFor(sim), ["edis:password"]);
});
afterEach(() => sim.stop());

test("getLocations and getLocation by name (case-insensitive, whole or city) or id", async () => {
    const { locations } = await edis.getLocations();
    expect(locations.map((l) => [l.id, l.name])).toEqual([
        [1, "Frankfurt, Germany"],
        [2, "Vienna, Austria"],
        [3, "London, United Kingdom"],
        [4, "Zurich, Switzerland"],
    ]);
    expect(locations[0].headline).toContain("DE-CIX");
    expect((await edis.getLocation({ name: "vienna" })).id).toBe(2);
    expect((await edis.getLocation({ name: "LONDON, united kingdom" })).id).toBe(3);
    expect((await edis.getLocation({ id: 4 })).name).toBe("Zurich, Switzerland");
    expect(await rejection(edis.getLocation({ name: "Paris" }))).toBe(
        'edis.getLocation: no location with name "Paris"; available: "Frankfurt, Germany" (id 1), "Vienna, Austria" (id 2), "London, United Kingdom" (id 3), "Zurich, Switzerland" (id 4)',
    );
});

test("getPlans filters and sorts by price in the chosen cycle", async () => {
    const all = (await edis.getPlans({ locationId: 1 })).plans;
    expect(all.map((p) => [p.name, p.prices.monthly])).toEqual([
        ["KVM S", 4.5],
        ["KVM M", 8],
        ["KVM L", 15],
        ["KVM XL", 28],
    ]);
    expect(all[1]).toMatchObject({ id: 102, cpu: 2, ramMb: 2048, diskGb: 40, trafficTb: 4, currency: "EUR" });
    expect(all[1].addons.os.length).toBeGreaterThan(0);
    const big = await edis.getPlans({ locationId: 1, minCpu: 4, minRamMb: 4096, minDiskGb: 80, minTrafficTb: 8 });
    expect(big.plans.map((p) => p.name)).toEqual(["KVM L", "KVM XL"]);
    expect((await edis.getPlans({ locationId: 1, maxPrice: 8 })).plans.map((p) => p.name)).toEqual(["KVM S", "KVM M"]);
    expect((await edis.getPlans({ locationId: 1, nameRegex: "^kvm (s|xl)$" })).plans.map((p) => p.id)).toEqual([101, 104]);
    // Prices are compared in the cycle asked for: London's yearly prices, from description.price.annually.
    const yearly = await edis.getPlans({ locationId: 3, billingCycle: "annually", maxPrice: 200 });
    expect(yearly.plans.map((p) => [p.name, p.prices.annually])).toEqual([["KVM S", 53.46], ["KVM M", 95.04], ["KVM L", 178.2]]);
    expect(await rejection(edis.getPlans({ locationId: 9 }))).toContain("edis.getPlans: no location with id 9; available: 1 (Frankfurt, Germany)");
    expect(await rejection(edis.getPlans({ locationId: 1, nameRegex: "([" }))).toContain('nameRegex "([" is not a valid regular expression');
});

test("getPlan: by name, or the cheapest that fits; when none fits, the nearest candidates and why", async () => {
    expect((await edis.getPlan({ locationId: 2, name: "kvm l" })).id).toBe(203);
    expect((await edis.getPlan({ locationId: 2, minRamMb: 3000 })).name).toBe("KVM L");
    expect(await rejection(edis.getPlan({ locationId: 2, name: "KVM XXL" }))).toBe(
        'edis.getPlan: no plan named "KVM XXL" at location 2; plans there: "KVM S", "KVM M", "KVM L", "KVM XL"',
    );
    const none = await rejection(edis.getPlan({ locationId: 1, minRamMb: 8192, maxPrice: 20 }));
    expect(none).toContain("edis.getPlan: no plan at location 1 satisfies the filters; nearest: ");
    expect(none).toContain("KVM L (id 103: 4 vCPU, 4096 MB RAM, 80 GB disk, 8 TB traffic, 15.00 EUR monthly): ramMb 4096 < 8192");
    expect(none).toContain("KVM XL (id 104: 8 vCPU, 8192 MB RAM, 160 GB disk, 16 TB traffic, 28.00 EUR monthly): price 28.00 > 20");
});

test("getOperatingSystems and getOperatingSystem picks the highest version", async () => {
    const { operatingSystems } = await edis.getOperatingSystems({ locationId: 1, planId: 101 });
    expect(operatingSystems.map((o) => o.name)).not.toContain("Windows Server 2022 Standard (64bit)");
    expect((await edis.getOperatingSystem({ locationId: 1, planId: 101, nameRegex: "^debian" })).name).toBe("Debian 12 (64bit)");
    expect((await edis.getOperatingSystem({ locationId: 1, planId: 101, nameRegex: "ubuntu" })).name).toBe("Ubuntu 24.04 LTS (64bit)");
    expect((await edis.getOperatingSystem({ locationId: 1, planId: 102, nameRegex: "windows" })).id).toBe(1122);
    expect(await rejection(edis.getOperatingSystem({ locationId: 1, planId: 101, nameRegex: "windows" }))).toContain(
        'no operating system of plan 101 matches /windows/i; available: "Debian 11 (64bit)"',
    );
    expect(await rejection(edis.getOperatingSystems({ locationId: 1, planId: 301 }))).toContain("no plan with id 301 at location 1");
});

test("getAddon: one add-on with its monthly price; ambiguous or missing patterns are errors", async () => {
    expect(await edis.getAddon({ locationId: 1, planId: 101, group: "ram", nameRegex: "2048" })).toEqual({
        id: 2002,
        name: "+2048 MB RAM",
        group: "ram",
        monthlyPrice: 4,
        currency: "EUR",
        prices: expect.objectContaining({ monthly: 4 }),
    });
    expect(await edis.getAddon({ locationId: 1, planId: 102, group: "diskBoost", nameRegex: "no drive" })).toMatchObject({ id: 2300, monthlyPrice: undefined, prices: {} });
    expect((await edis.getAddon({ locationId: 1, planId: 102, group: "diskBoost", nameRegex: "50 GByte" })).id).toBe(2302);
    expect(await rejection(edis.getAddon({ locationId: 1, planId: 101, group: "diskBoost", nameRegex: "50" }))).toContain(
        "/50/i in group diskBoost of plan 101 matches nothing; available: none",
    );
    expect(await rejection(edis.getAddon({ locationId: 1, planId: 101, group: "ram", nameRegex: "RAM" }))).toContain(
        'matches 3 add-ons ("no additional RAM", "+1024 MB RAM", "+2048 MB RAM"); make it match one',
    );
    expect(await rejection(edis.getAddon({ locationId: 1, planId: 101, group: "gpu" as any, nameRegex: "x" }))).toContain(
        'group "gpu" is not one of ram, vcpu, ip, diskBoost (or the API\'s names: "additional ram"',
    );
    // The API's own group names (get/products) name the same groups.
    expect(await edis.getAddon({ locationId: 1, planId: 101, group: "additional ram", nameRegex: "2048" })).toMatchObject({ id: 2002, group: "ram" });
    expect(await edis.getAddon({ locationId: 1, planId: 102, group: "additional drive boost", nameRegex: "50 GByte" })).toMatchObject({ id: 2302, group: "diskBoost" });
    expect(await rejection(edis.getAddon({ locationId: 1, planId: 101, group: "operating system" as any, nameRegex: "Debian" }))).toContain("getOperatingSystem()");
});

test("billing cycles, payment methods", async () => {
    expect((await edis.getBillingCycles()).billingCycles).toEqual(["monthly", "quarterly", "semiannually", "annually"]);
    expect((await edis.getPaymentMethods()).paymentMethods).toEqual([
        { id: "credit", name: "credit" },
        { id: "paypal", name: "paypal" },
        { id: "banktransfer", name: "banktransfer" },
    ]);
});

test("sessions and the id mapping; no session result carries the signature or the expiry text it is bound to", async () => {
    const order = await clientFor(sim).addOrder({ billingCycle: "monthly", paymentMethod: "paypal", applyCredit: true, items: [{ pid: 101, os: 1012, hostname: "s.example.com" }] });
    const serviceId = order.serviceIds[0];
    expect(await edis.getKvmId({ serviceId })).toEqual({ serviceId, kvmId: undefined });
    const { kvmId } = await edis.getKvmId({ serviceId });
    expect(kvmId).toMatch(/^kvm_/);
    expect(await edis.getServiceId({ kvmId: kvmId! })).toEqual({ kvmId, serviceId });
    const { sessions } = await edis.getKvmSessions();
    expect(sessions).toEqual([expect.objectContaining({ kvmId, description: "s.example.com", apiRdns: "dns-api.edis-sim.invalid", suspended: false })]);
    // Each lookup asks get/auth again, whose session may end a second later: compared without its expiry.
    const sameSession = ({ validUntil: _until, ...session }: typeof sessions[0]) => session;
    const one = await edis.getKvmSession({ kvmId: kvmId! });
    expect(sameSession(one)).toEqual(sameSession(sessions[0]));
    // Its expiry is kept, and a later session does not end sooner.
    expect(one.validUntil).toBeGreaterThanOrEqual(sessions[0].validUntil!);
    const signature = [...sim.account.issuedSignatures][0];
    expect(signature).toBeDefined();
    for (const result of [sessions[0], one]) {
        expect(Object.keys(result)).not.toContain("signature");
        expect(Object.keys(result)).not.toContain("validUntilText");
        expect(JSON.stringify(result)).not.toContain(signature);
    }
    expect(await rejection(edis.getKvmSession({ kvmId: "kvm_0_0" }))).toContain('the account has no KVM "kvm_0_0"');
    expect(await rejection(edis.getKvmId({ serviceId: 4 }))).toContain("the account has no service 4");

    const output = await new Promise<typeof sessions[0]>((resolve) => edis.getKvmSessionOutput({ kvmId: pulumi.output(kvmId!) }).apply(resolve));
    expect(sameSession(output)).toEqual(sameSession(sessions[0]));
});

test("an Output form waits for Output arguments", async () => {
    const location = edis.getLocationOutput({ name: "Zurich" });
    const plan = edis.getPlanOutput({ locationId: location.id, minCpu: 2 });
    // Zurich's plans offer no additional IP: the group is absent from its answer.
    const value = await new Promise((resolve) => plan.apply((p) => resolve([p.name, p.locationId, p.addons.ip.length, p.addons.ram.length])));
    expect(value).toEqual(["KVM M", 4, 0, 3]);
});

test("missing credentials in a lookup name the config key and the variable", async () => {
    pulumi.runtime.setAllConfig({ "edis:baseUrl": sim.url }, []);
    const saved = { ...process.env };
    delete process.env.EDIS_EMAIL;
    delete process.env.EDIS_PASSWORD;
    try {
        expect(await rejection(edis.getLocations())).toContain("config `edis:email` (or EDIS_EMAIL) and config `edis:password` (or EDIS_PASSWORD)");
    } finally {
        process.env = saved;
    }
});
