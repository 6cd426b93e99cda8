// The specification against the simulator and the client, separately (every test's answers: checkEveryAnswer.ts).
import { EdisClient } from "../../provider/client/client";
import * as wire from "../../provider/client/schemas";
import { billingCycleProblem } from "../../provider/kvm/orderCheck";
import { EdisSimulator } from "../../simulator/server";
import { clientFor, startSimulator } from "../support/sim";
import { takeViolations } from "./conformance";
import * as fixtures from "./fixtures";
import { SUCCESS_ANSWERS, conformanceProblems } from "./specSchemas";

/** The field names of the specification's tables; every other key of an answer is a map key (a name or id). */
const SPEC_FIELDS = new Set(
    ("status data api_host api_rdns kvm_id valid_until signature suspended description lps lps_ispremium locations id " +
        "headline products addons disk ram cpu traffic price size unit monthly quarterly semiannually annually amount " +
        "currency orderid serviceids invoiceid invoicepaid").split(" "),
);

/** Every path to a specification field in a JSON value. */
function fieldPaths(value: unknown, prefix: string[] = []): string[][] {
    if (!value || typeof value !== "object" || Array.isArray(value)) return [];
    return Object.entries(value).flatMap(([key, child]) => [
        ...(SPEC_FIELDS.has(key) ? [[...prefix, key]] : []),
        ...fieldPaths(child, [...prefix, key]),
    ]);
}

function without(value: unknown, path: string[]): unknown {
    const copy = structuredClone(value) as Record<string, any>;
    const parent = path.slice(0, -1).reduce((o, k) => o[k], copy);
    delete parent[path[path.length - 1]];
    return copy;
}

/** The specification's optional fields: a location's headline, an add-on's price. */
function optional(path: string[]): boolean {
    const last = path[path.length - 1];
    return last === "headline" || (last === "price" && path.includes("addons"));
}

describe("the strict schemas hold every field of the specification", () => {
    test.each([
        ["get/auth", fixtures.authAnswer],
        ["get/locations", fixtures.locationsAnswer],
        ["get/products", fixtures.productsAnswer],
        ["add/order", fixtures.orderAnswer],
    ])("%s: the fixture passes, and removing any required field fails", (endpoint, answer) => {
        const schema = SUCCESS_ANSWERS[endpoint];
        expect(schema.safeParse(answer).success).toBe(true);
        const paths = fieldPaths(answer);
        const accepted = paths.filter((p) => schema.safeParse(without(answer, p)).success).map((p) => p.join("."));
        expect(accepted.filter((p) => !optional(p.split(".")))).toEqual([]);
        expect(paths.length).toBeGreaterThan(4);
    });

    test("the dialect of the first version is refused", () => {
        const plan = fixtures.productsAnswer.products["KVM S"];
        const dialects: unknown[] = [
            { ...plan, description: "1 vCPU Core, 1024 MB RAM, 20 GB SSD Storage, 2 TB Traffic" },
            { ...plan, addons: { os: plan.addons["operating system"] } },
            { ...plan, addons: { "operating system": { "77": { id: 77, name: "Debian 12 (64bit)" } } } },
            { ...plan, pricing: { monthly: "4.50", currency: "EUR" } },
            { ...plan, description: { ...plan.description, ram: { size: "1024", unit: "MByte" } } },
            { ...plan, description: { ...plan.description, price: { ...plan.description.price, monthly: { amount: 4.5, currency: "EUR" } } } },
        ];
        for (const dialect of dialects) {
            const problems = conformanceProblems({
                endpoint: "get/products",
                httpStatus: 200,
                request: { email: "e", pw: "p", location_id: "1" },
                body: { status: "success", products: { "KVM S": dialect } },
            });
            expect(problems).toEqual([expect.stringMatching(/^get\/products \(HTTP 200\) answer: products\.KVM S[.:]/)]);
        }
        const order = { ...fixtures.orderAnswer, serviceids: [123, 124] };
        expect(conformanceProblems({ endpoint: "add/order", httpStatus: 200, request: {}, body: order }).join()).toContain("serviceids");
    });
});

describe("the simulator speaks the specification", () => {
    let sim: EdisSimulator;
    let client: EdisClient;
    const answers: Record<string, unknown[]> = {};

    beforeAll(async () => {
        sim = await startSimulator({
            provisioningDelayMs: 0,
            onAnswer: (a) => void (answers[a.endpoint] ??= []).push(a.body),
        });
        client = clientFor(sim);
    });
    afterAll(() => sim.stop());

    test("every endpoint, through the client: no answer and no successful request outside the specification", async () => {
        for (const location of (await client.getLocations()).locations) await client.getProducts(location.id);
        await client.getBillingCycles();
        await client.getPaymentMethods();
        const order = await client.addOrder({
            billingCycle: "quarterly",
            paymentMethod: "paypal",
            applyCredit: true,
            items: [{ pid: 102, os: 1012, hostname: "spec.example.com", additionalRam: 2001, additionalIp: 2201, diskBoost: 2300, sshPublicKey: "ssh-ed25519 AAAA x" }],
        });
        const kvmId = (await client.getKvmId(order.serviceIds[0]))!;
        expect(kvmId).toMatch(/^kvm_/);
        await client.getServiceId(kvmId);
        await client.getAuth();
        await client.getAuth(kvmId);
        await client.addUpgrade({ kvmId, newPid: 103, newBillingCycle: "semiannually", newPaymentMethod: "paypal" });
        await client.cancelProduct({ serviceId: order.serviceIds[0], type: "Immediate" });
        await expect(client.cancelProduct({ serviceId: order.serviceIds[0], type: "Immediate" })).rejects.toThrow(/not found/);

        expect(takeViolations()).toEqual([]);
        expect(Object.keys(answers).sort().join(" ")).toBe(
            "add/order add/upgrade cancel/product get/auth get/billingcycles get/kvmid get/locations get/paymentmethods get/products get/serviceid",
        );
    });

    test("the check is wired into every test's simulator: an answer with a field the specification does not name is caught", async () => {
        const original = sim.account.getLocations.bind(sim.account);
        sim.account.getLocations = () => {
            const answer = original();
            (answer.locations["Vienna, Austria"] as Record<string, unknown>).country = "AT";
            return answer;
        };
        try {
            await client.getLocations();
        } finally {
            sim.account.getLocations = original;
        }
        expect(takeViolations()).toEqual([expect.stringMatching(/^get\/locations \(HTTP 200\) answer: locations\.Vienna, Austria: Unrecognized key: "country"/)]);
    });

    test("the order the client sends is the specification's order document", () => {
        const sent = sim.calls("add/order")[0].fields.order as string;
        expect(JSON.parse(sent)).toEqual({
            billingcycle: "quarterly",
            paymentmethod: "paypal",
            applycredit: true,
            item: [{ pid: 102, os: 1012, hostname: "spec.example.com", additional_ram: 2001, additional_vcpu: "", additional_ip: 2201, additional_diskboost: 2300, ssh_pubkey: "ssh-ed25519 AAAA x" }],
        });
        expect(conformanceProblems({ endpoint: "add/order", httpStatus: 200, request: { email: "e", pw: "p", order: JSON.stringify({ ...JSON.parse(sent), billingcycle: "Monthly" }) }, body: fixtures.orderAnswer })).toEqual([
            expect.stringContaining("request: order.billingcycle"),
        ]);
    });
});

describe("the Management API, as the vendor's reference pages show it", () => {
    const session = { signature: "s".repeat(50), kvm_id: "kvm_123456_789012", valid_until: "1737476000" };

    test("a management request that carries the account's e-mail or password fails the check: per-server hosts never get them", () => {
        const ok = { endpoint: "get/power", httpStatus: 200, request: session, body: { status: "success", data: "server powered on", traffic_suspended: false } };
        expect(conformanceProblems(ok)).toEqual([]);
        expect(conformanceProblems({ ...ok, request: { ...session, email: "e", pw: "p" } })).toEqual([
            expect.stringMatching(/^get\/power \(HTTP 200\) request: \(whole\): Unrecognized keys: "email", "pw"/),
        ]);
    });

    test("each documented answer without one of its fields fails the check", () => {
        const answers: Record<string, Record<string, unknown>> = {
            "get/power": { status: "success", data: "server powered on", traffic_suspended: false },
            "set/vnc/enable": { status: "success", vnc_status: "enabled", novnc_port: 6080, vnc_port: "5901", vnc_host: "vnc.example" },
            "set/vnc/disable": { status: "success", msg: "vnc disabled" },
            "set/ptr": { status: "success", message: "PTR records set successfully." },
            "hooks/set": { status: "success", hook_id: "123" },
            "hooks/del": { status: "success", message: "Webhook with ID 1 has been deleted." },
        };
        for (const [endpoint, body] of Object.entries(answers)) {
            expect(conformanceProblems({ endpoint, httpStatus: 200, request: {}, body }).filter((p) => p.includes("answer:"))).toEqual([]);
            for (const field of Object.keys(body).filter((k) => k !== "status")) {
                const { [field]: _, ...without } = body;
                expect({ endpoint, field, problems: conformanceProblems({ endpoint, httpStatus: 200, request: {}, body: without }).some((p) => p.includes("answer:")) }).toEqual({ endpoint, field, problems: true });
            }
        }
    });

    test("the client reads the documented answers, and the open wordings it tolerates", () => {
        expect(wire.powerAnswer.parse({ status: "success", data: "server powered on", traffic_suspended: false })).toEqual({ state: "on", text: "server powered on", trafficSuspended: false });
        expect(wire.powerAnswer.parse({ data: "Server is stopped", traffic_suspended: "1" })).toMatchObject({ state: "off", trafficSuspended: true });
        expect(wire.powerAnswer.safeParse({ data: "rebooting" }).success).toBe(false);
        expect(wire.vncAnswer.parse({ vnc_status: "enabled", novnc_port: 6080, vnc_port: "5901", vnc_host: "h" })).toEqual({ enabled: true, host: "h", port: 5901, novncPort: 6080 });
        expect(wire.hookAnswer.parse({ hook_id: "123" })).toBe(123);
        expect(wire.hookAnswer.parse({ hook_id: 7 })).toBe(7);
    });
});

describe("the client reads each shape of the specification", () => {
    test("session entries: every field, suspended from its letter", () => {
        const [a, b] = wire.authAnswer.parse(fixtures.authAnswer).sessions;
        expect(a).toEqual({
            kvmId: "kvm_123456_789012",
            apiHost: "api-1.example.net",
            apiRdns: "dns-api.example.net",
            validUntil: 1790000000,
            validUntilText: "1790000000",
            signature: fixtures.SESSION_SIGNATURE,
            suspended: false,
            description: "KVM M web-1.example.com",
            lps: "07",
            lpsIsPremium: false,
        });
        expect(b).toMatchObject({ kvmId: "kvm_123457_000001", suspended: true, lps: "12", lpsIsPremium: true });
    });

    test("locations keyed by display name; an empty or absent headline is no headline", () => {
        const { locations, unreadable } = wire.locationsAnswer.parse(fixtures.locationsAnswer);
        expect(unreadable).toEqual([]);
        expect(locations.map((l) => [l.id, l.name, l.headline])).toEqual([
            [11, "Frankfurt, Germany", "DE-CIX"],
            [12, "Vienna, Austria", undefined],
            [13, "Zurich, Switzerland", undefined],
        ]);
    });

    test("plans: figures from sizes and units, prices per cycle with currency, groups by the specification's names", () => {
        const [m, s] = wire.productsAnswer(11).parse(fixtures.productsAnswer);
        expect(m.id).toBe(102);
        expect(m.name).toBe("KVM M");
        expect(m.locationId).toBe(11);
        expect([m.cpu, m.ramMb, m.diskGb, m.trafficTb]).toEqual([2, 2048, 40, 10]);
        expect(m.currency).toBe("EUR");
        expect(m.prices).toEqual({ monthly: 8, quarterly: 23.28, semiannually: 45.12, annually: 86.4 });
        expect(m.addons.os).toEqual([
            { id: 77, name: "Debian 12 (64bit)", prices: {}, currency: undefined, unpriced: true },
            { id: 78, name: "Debian 11 (64bit)", prices: {}, currency: undefined, unpriced: true },
        ]);
        expect(m.addons.ram).toEqual([
            { id: 300, name: "no additional RAM", prices: {}, currency: undefined, unpriced: true },
            { id: 301, name: "+1 GB RAM", prices: { monthly: 2 }, currency: "EUR" },
        ]);
        expect(m.addons.ip).toEqual([{ id: 400, name: "+1 IPv4", prices: { monthly: 1.5 }, currency: "EUR" }]);
        expect(m.addons.diskBoost).toEqual([{ id: 500, name: "no drive boost", prices: {}, currency: undefined, unpriced: true }]);
        expect(m.addons.vcpu).toEqual([]);
        expect(m.addons.other).toEqual({});

        // The other plan offers operating systems only.
        expect([s.id, s.name, s.cpu, s.ramMb, s.diskGb, s.trafficTb, s.prices.annually]).toEqual([101, "KVM S", 1, 1024, 20, 2, 48.6]);
        expect([s.addons.os.length, s.addons.ram, s.addons.ip, s.addons.diskBoost]).toEqual([1, [], [], []]);
    });
});

describe("tolerance where the specification leaves things open, without weakening the specified path", () => {
    const plan = fixtures.productsAnswer.products["KVM M"];
    const parse = (description: object) => wire.productsAnswer(1).parse({ products: { P: { ...plan, description: { ...plan.description, ...description } } } })[0];

    test("other byte units convert: RAM in GByte counts 1024, disk in TByte and traffic in GByte count 1000", () => {
        const p = parse({ ram: { size: 2, unit: "GByte" }, disk: { size: 1, unit: "TByte" }, traffic: { size: 500, unit: "GByte" } });
        expect([p.ramMb, p.diskGb, p.trafficTb]).toEqual([2048, 1000, 0.5]);
        expect(parse({ ram: { size: "4096", unit: "MB" }, cpu: { size: 4, unit: "cores" } })).toMatchObject({ ramMb: 4096, cpu: 4 });
    });

    test("a unit that is not a size leaves the figure unknown; a figure of the wrong shape is an error naming it", () => {
        expect(parse({ traffic: { size: 1, unit: "unmetered" }, cpu: { size: 2, unit: "GHz" } })).toMatchObject({ trafficTb: undefined, cpu: undefined, ramMb: 2048 });
        const bad = wire.productsAnswer(1).safeParse({ products: { P: { ...plan, description: { ...plan.description, ram: "2048 MB" } } } });
        expect(bad.success).toBe(false);
        expect(wire.describeIssues(bad.error!)).toContain("products.P.description.ram");
    });

    test("ids as numeric strings, PHP's [] for an empty map, a cycle priced -1.00 is not sold, a price entry of the wrong shape is an error", () => {
        const [p] = wire.productsAnswer(1).parse({
            products: { P: { id: "102", description: { ...plan.description, price: { ...plan.description.price, annually: { amount: "-1.00", currency: "EUR" } } }, addons: [] } },
        });
        expect(p).toMatchObject({ id: 102, prices: { monthly: 8, quarterly: 23.28, semiannually: 45.12 } });
        expect(p.prices.annually).toBeUndefined();
        expect(billingCycleProblem({ ...p, name: "KVM S", id: 101 }, "annually")).toBe('billingCycle "annually" is not sold for plan 101 (KVM S); sold: monthly, quarterly, semiannually');
        expect(p.addons.os).toEqual([]);
        expect(wire.locationsAnswer.parse({ locations: [] })).toEqual({ locations: [], unreadable: [] });
        const bad = wire.productsAnswer(1).safeParse({ products: { P: { ...plan, description: { ...plan.description, price: { monthly: "8.00" } } } } });
        expect(wire.describeIssues(bad.error!)).toContain("products.P.description.price.monthly");
    });

    test("group names without case or spacing differences, the order item's field names, and unknown groups kept", () => {
        const [p] = wire.productsAnswer(1).parse({
            products: {
                P: {
                    ...plan,
                    addons: {
                        "Operating System": { "1": { id: 1, description: "Debian" } },
                        additional_vcpu: { "2": { id: 2, description: "+1 core", price: { monthly: { amount: "1.00", currency: "EUR" } } } },
                        "additional backup": { "3": { id: 3, description: "daily" } },
                    },
                },
            },
        });
        expect(p.addons.os.map((a) => a.id)).toEqual([1]);
        expect(p.addons.vcpu).toEqual([{ id: 2, name: "+1 core", prices: { monthly: 1 }, currency: "EUR" }]);
        expect(p.addons.other).toEqual({ "additional backup": [{ id: 3, name: "daily", prices: {}, currency: undefined, unpriced: true }] });
    });
});
