/** Pure rules of the resource: input checks, diff classes, configuration. */
import { checkInputs, INPUT_NAMES, UNKNOWN } from "../provider/kvm/inputs";
import { InProcess, simulatorAndCore } from "./support/inProcess";
import { kvmServerOn } from "../provider/kvm/provider";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { diffKvmServer, needsUpgrade } from "../provider/kvm/diff";
import { OrderJournal, entryId, resolveCommand } from "../provider/journal";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { PACKAGE_ROOT } from "./support/workspace";
import { resolveConfig, requireCredentials, unknownSettings } from "../provider/config";

// A well-formed ed25519 public key line: the type prefix inside the blob is right, the key bytes are arbitrary.
const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGQ5U1y0mDpmzdqyDbI2mZtI9Vb1x3nnPX9P6pC3vFhq test@example";

describe("check", () => {
    test("normalizes, fills static defaults, leaves unset optionals out", () => {
        const { inputs, failures } = checkInputs({ planId: "101", osId: 1012, hostname: "Web-1.example.com", billingCycle: "Semi-Annually", sshPublicKey: KEY, __provider: "x" });
        expect(failures).toEqual([]);
        expect(inputs).toEqual({ planId: 101, osId: 1012, hostname: "Web-1.example.com", billingCycle: "semiannually", applyCredit: true, sshPublicKey: KEY });
    });

    test("unknown values pass during preview", () => {
        const { inputs, failures } = checkInputs({ planId: UNKNOWN, osId: UNKNOWN, hostname: UNKNOWN });
        expect(failures).toEqual([]);
        expect(inputs.planId).toBe(UNKNOWN);
    });

    test.each([
        [{ planId: 0 }, "planId", "positive whole number"],
        [{ osId: 1.5 }, "osId", "positive whole number"],
        [{ hostname: "a".repeat(64) + ".com" }, "hostname", "RFC 1123"],
        [{ hostname: "bad_name" }, "hostname", "RFC 1123"],
        [{ billingCycle: "biweekly" }, "billingCycle", '"monthly", "quarterly", "semiannually", "annually"'],
        [{ applyCredit: "yes" }, "applyCredit", "true or false"],
        [{ provisioningTimeoutSeconds: 0 }, "provisioningTimeoutSeconds", "from 1 to 86400"],
        [{ sshPublicKey: "-----BEGIN OPENSSH PRIVATE KEY-----" }, "sshPublicKey", "private key"],
        [{ sshPublicKey: "ssh-dsa AAAA" }, "sshPublicKey", "key type"],
        [{ sshPublicKey: KEY.replace("ssh-ed25519", "ssh-rsa") }, "sshPublicKey", "does not encode a ssh-rsa key"],
        [{ sshPublicKey: `${KEY}\n${KEY}` }, "sshPublicKey", "one line"],
        [{ adoptKvmId: "kvm 1" }, "adoptKvmId", "KVM id"],
        [{ cancellationType: "immediate" }, "cancellationType", '"Immediate" or "End of Billing Period"'],
        [{ hostName: "typo" }, "hostName", "not a KvmServer input (did you mean hostname?)"],
        [{ hotsname: "typo" }, "hotsname", "not a KvmServer input (did you mean hostname?)"],
        [{ colour: "red" }, "colour", "not a KvmServer input; inputs are planId, "],
    ])("%j fails on %s", (bad, property, text) => {
        const { failures } = checkInputs({ planId: 101, osId: 1012, hostname: "a.example.com", ...bad });
        expect(failures).toHaveLength(1);
        expect(failures[0].property).toBe(property);
        expect(failures[0].reason).toContain(text);
    });

    test.each([
        ["batchOrder", "(did you mean `edis:batchOrders`?)"],
        ["BATCHORDERS", "(did you mean `edis:batchOrders`?)"],
        ["requestTimeoutSecond", "(did you mean `edis:requestTimeoutSeconds`?)"],
        ["colour", "is not a setting of the edis provider; its settings are email, password, "],
    ])("the unknown setting edis:%s is named, with the one it resembles", (key, text) => {
        expect(unknownSettings([key, "batchOrders", "email"])).toEqual([{ property: key, reason: expect.stringContaining(text) }]);
    });

    test("required inputs", () => {
        expect(checkInputs({}).failures.map((f) => f.reason)).toEqual(["planId is required", "osId is required", "hostname is required"]);
    });
});

describe("diff", () => {
    const old = { planId: 101, osId: 1012, hostname: "a.example.com", locationId: 1, billingCycle: "monthly", applyCredit: true, serviceId: 7, kvmId: "kvm_1_2", __provider: "old" };

    /** Each input's effect, copied by hand from the README's KvmServer table (never from diff.ts's own lists). */
    const README_TABLE: Record<string, ["replace" | "upgrade" | "in place", unknown]> = {
        planId: ["upgrade", 102],
        osId: ["replace", 1024],
        hostname: ["replace", "b.example.com"],
        locationId: ["replace", 2],
        billingCycle: ["upgrade", "annually"],
        paymentMethod: ["in place", "paypal"],
        applyCredit: ["in place", false],
        additionalRamId: ["replace", 2001],
        additionalVcpuId: ["replace", 2101],
        additionalIpId: ["replace", 2201],
        diskBoostId: ["replace", 2301],
        sshPublicKey: ["replace", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKx other@host"],
        cancellationType: ["in place", "Immediate"],
        provisioningTimeoutSeconds: ["in place", 60],
        adoptKvmId: ["replace", "kvm_3_4"],
        powerState: ["in place", "off"],
        replaceOnPlanChange: ["in place", true],
    };

    /** What a diff plans: "no change", or the inputs it replaces the server on ([] for a change in place). */
    const planned = (olds: Record<string, unknown>, news: Record<string, unknown>) => {
        const { changes, replaces } = diffKvmServer(olds, news);
        return changes ? replaces : replaces.length ? "replaces without a change" : "no change";
    };

    test("the table names every input of the resource, and only those", () => {
        expect(Object.keys(README_TABLE).sort()).toEqual([...INPUT_NAMES].sort());
    });

    test("no change, whatever the provider text and outputs say", () => {
        const { serviceId, kvmId, ...inputs } = old;
        expect(diffKvmServer(old, { ...inputs, __provider: "new" })).toMatchObject({ changes: false, replaces: [] });
    });

    test.each(Object.entries(README_TABLE).map(([k, [effect, value]]) => [k, effect, value]))("a new %s: %s", (key, effect, value) => {
        const d = diffKvmServer(old, { ...old, [key]: value });
        expect(d).toMatchObject({ changes: true, replaces: effect === "replace" ? [key] : [] });
        expect(needsUpgrade(old, { ...old, [key]: value })).toBe(effect === "upgrade");
    });

    test("replaceOnPlanChange: true makes a planId change a replacement; a billing cycle still changes in place", () => {
        const asked = { ...old, replaceOnPlanChange: true };
        expect(diffKvmServer(old, { ...asked, planId: 102 })).toMatchObject({ changes: true, replaces: ["planId"] });
        expect(diffKvmServer(asked, { ...asked, planId: 102 })).toMatchObject({ changes: true, replaces: ["planId"] });
        expect(planned(asked, { ...asked, billingCycle: "annually" })).toEqual([]);
        expect(planned(asked, { ...asked, planId: 102, replaceOnPlanChange: false })).toEqual([]);
        // Unknown (preview): the replacement it may be.
        expect(planned(old, { ...old, planId: 102, replaceOnPlanChange: UNKNOWN })).toEqual(["planId"]);
    });

    test("adoptKvmId is a one-time import: removing it once adopted is no change; another KVM replaces", () => {
        const adopted = { ...old, adoptKvmId: "kvm_1_2" };
        expect(diffKvmServer(adopted, { ...old })).toMatchObject({ changes: false, replaces: [] });
        expect(planned(adopted, { ...old, adoptKvmId: "kvm_3_4" })).toEqual(["adoptKvmId"]);
    });

    test("a replacement whose new half would adopt the KVM the resource already is, is refused before anything happens", () => {
        const adopted = { ...old, adoptKvmId: "kvm_1_2" };
        expect(() => diffKvmServer(adopted, { ...adopted, planId: 201, replaceOnPlanChange: true })).toThrow(/would adopt the same server/);
        expect(() => diffKvmServer(adopted, { ...adopted, hostname: "b.example.com" })).toThrow(/Remove adoptKvmId first/);
        expect(diffKvmServer(adopted, { ...old, hostname: "b.example.com" })).toMatchObject({ replaces: ["hostname"] });
    });

    test("a server ordered but not provisioned (service id, no KVM id) is a change in place, so that the update resumes it", () => {
        const { kvmId, ...unfinished } = old;
        expect(diffKvmServer(unfinished, unfinished)).toMatchObject({ changes: true, replaces: [], changed: ["provisioning"] });
    });

    test("powerState: unset is not managed (any reported state is the same); set, a reported or unknown other state is a change", () => {
        expect(diffKvmServer({ ...old, powerState: "off" }, old).changes).toBe(false);
        expect(diffKvmServer({ ...old, powerState: "off" }, { ...old, powerState: "on" })).toMatchObject({ changes: true, replaces: [], changed: ["powerState"] });
        expect(diffKvmServer(old, { ...old, powerState: "off" })).toMatchObject({ changes: true, replaces: [] });
        expect(diffKvmServer({ ...old, powerState: "on" }, { ...old, powerState: "on" }).changes).toBe(false);
        expect(checkInputs({ planId: 101, osId: 1012, hostname: "a.example.com", powerState: "stopped" }).failures).toEqual([
            { property: "powerState", reason: 'powerState must be "on" or "off" (leave it unset to not manage power), got "stopped"' },
        ]);
    });

    test("meaning, not bytes: host name case, SSH key comment and spacing, locationId left out", () => {
        expect(diffKvmServer(old, { ...old, hostname: "A.Example.COM" }).changes).toBe(false);
        const key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGQ5U1y0mDpmzdqyDbI2mZtI9Vb1x3nnPX9P6pC3vFhq";
        expect(diffKvmServer({ ...old, sshPublicKey: `${key} a@b` }, { ...old, sshPublicKey: `${key.replace(" ", "  ")}\tc@d` }).changes).toBe(false);
        expect(diffKvmServer(old, { ...old, locationId: undefined }).changes).toBe(false);
        const half = { ...old, billingCycle: "semiannually" };
        expect(diffKvmServer(half, { ...half, billingCycle: "semi-annually" }).changes).toBe(false);
    });
});

describe("configuration", () => {
    test("the password goes over https only: http only to loopback or when allowed; no credentials in URLs", () => {
        const problems = (baseUrl: string, allow?: string) =>
            resolveConfig((k) => ({ email: "a", password: "b", baseUrl, allowInsecureHttp: allow })[k], {}).problems;
        expect(problems("https://order.example.net/")).toEqual([]);
        for (const local of ["http://127.0.0.1:18080", "http://localhost:9", "http://[::1]:8080"]) expect(problems(local)).toEqual([]);
        expect(problems("http://order.example.net")).toEqual([
            'config `edis:baseUrl` (or EDIS_BASE_URL) must be https: the account password is sent with every request, and "http://order.example.net" would send it unencrypted (plain http is allowed to localhost, or with config `edis:allowInsecureHttp` (or EDIS_ALLOW_INSECURE_HTTP) set to true)',
        ]);
        expect(problems("http://order.example.net", "true")).toEqual([]);
        const withCredentials = problems("https://ops:hunter2@order.example.net");
        expect(withCredentials).toEqual(["config `edis:baseUrl` (or EDIS_BASE_URL) must not carry credentials (user:password@); set config `edis:email` and `edis:password` instead"]);
        expect(problems("ftp://order.example.net")).toEqual(['config `edis:baseUrl` (or EDIS_BASE_URL) must be an https URL, got "ftp://order.example.net"']);
        expect(problems("order.example.net:hunter2@x").join()).not.toContain("hunter2");
        expect(problems("https://me:Pa/ss9@x:y@api.edis.at").join(" ")).toContain('got "https://***@api.edis.at"');
        expect(problems("https://me:Pa/ss9@x:y@api.edis.at").join(" ")).not.toMatch(/Pa\/ss9|me:/);
    });

    test("stack config wins over the environment; empty config falls back", () => {
        const config = resolveConfig((k) => ({ email: "cfg@example.com", password: "" })[k], { EDIS_EMAIL: "env@example.com", EDIS_PASSWORD: "envpw" });
        expect(config).toMatchObject({ email: "cfg@example.com", password: "envpw", provisioningTimeoutSeconds: 1200, baseUrl: "https://order.edisglobal.com" });
    });

    test("bad values are reported when credentials are needed, with the key and the variable", () => {
        const config = resolveConfig((k) => ({ email: "a", password: "b", cancellationType: "Soon", provisioningTimeoutSeconds: "-1" })[k], {});
        expect(() => requireCredentials(config)).toThrow(
            'config `edis:cancellationType` (or EDIS_CANCELLATION_TYPE) must be "Immediate" or "End of Billing Period", got "Soon"; config `edis:provisioningTimeoutSeconds` (or EDIS_PROVISIONING_TIMEOUT_SECONDS) must be a number from 1 to 86400, got "-1"',
        );
    });
});

describe("the commands printed for the user to paste", () => {
    test.each([
        ["edis-basic/dev/web", "/tmp/p/.pulumi-edis/journal"],
        ['proj/stack/$(touch /tmp/edis-pwned)`id`"x"', "/tmp/it's here/$HOME"],
        ["a'b/c\\d/e f", "/tmp/j\nk"],
    ])("%j in %j reaches the CLI as exactly those words, and runs nothing", (key, dir) => {
        const command = resolveCommand("forget", key, new OrderJournal(dir), "order");
        // bash parses the pasted text; the words after the command name are what the CLI would receive.
        const words = execFileSync("bash", ["-c", `set -- ${command}; printf '%s\\0' "$@"`], { encoding: "utf8" }).split("\0").slice(0, -1);
        // The CLI of the code that printed it, by its path: never a name npx would fetch from a registry.
        expect(words).toEqual(["node", join(PACKAGE_ROOT, "provider", "cli.js"), "orders", "forget", entryId(key), "--kind", "order", "--dir", dir]);
        expect(command).not.toContain("`");
        expect(existsSync("/tmp/edis-pwned")).toBe(false);
    });
});

describe("an adopted or imported server: EDIS does not report its plan, OS or billing cycle", () => {
    // What `pulumi import` (or an adoption that named only the KVM) leaves in state.
    const imported = { adoptKvmId: "kvm_101006_1", hostname: "legacy-1.example.com", serviceId: 1006, kvmId: "kvm_101006_1" };

    it("may leave out planId, osId and hostname, and gets no default billing cycle, also once adoptKvmId is removed", () => {
        expect(checkInputs({ adoptKvmId: "kvm_101006_1" })).toEqual({ inputs: { adoptKvmId: "kvm_101006_1", applyCredit: true }, failures: [] });
        expect(checkInputs({}, { adoptKvmId: "kvm_101006_1" }).failures).toEqual([]);
        expect(checkInputs({}, { adoptKvmId: "kvm_101006_1" }).inputs.billingCycle).toBeUndefined();
    });

    it("records the first plan, OS, cycle and add-ons a program states by an update that orders, upgrades and replaces nothing", () => {
        const news = { adoptKvmId: "kvm_101006_1", hostname: "legacy-1.example.com", planId: 101, osId: 1012, billingCycle: "annually", additionalRamId: 2001, applyCredit: true };
        const diff = diffKvmServer(imported, news);
        expect(diff.changes).toBe(true);
        expect(diff.replaces).toEqual([]);
        expect(diff.changed.sort()).toEqual(["additionalRamId", "billingCycle", "osId", "planId"]);
        expect(needsUpgrade(imported, news)).toBe(false);
    });

    it("once recorded, a plan change is an upgrade and an OS change a replacement, as for any server", () => {
        const recorded = { ...imported, planId: 101, osId: 1012, billingCycle: "annually" };
        expect(needsUpgrade(recorded, { ...recorded, planId: 102 })).toBe(true);
        expect(diffKvmServer(recorded, { ...recorded, adoptKvmId: undefined, osId: 1022 }).replaces).toEqual(["osId"]);
    });

    it("previews with no change when the program states what state holds, or leaves the billing cycle out", () => {
        expect(diffKvmServer(imported, { adoptKvmId: "kvm_101006_1", hostname: "legacy-1.example.com", applyCredit: true }).changes).toBe(false);
        const adopted = { ...imported, planId: 101, osId: 1012, billingCycle: "monthly" };
        expect(diffKvmServer(adopted, { hostname: "legacy-1.example.com", planId: 101, osId: 1012, applyCredit: true }).changes).toBe(false);
    });

    it("learns nothing for a server that was ordered: a missing value there is a change", () => {
        const ordered = { hostname: "a.example.com", planId: 101, osId: 1012, billingCycle: "monthly", serviceId: 1003, kvmId: "kvm_1" };
        expect(diffKvmServer(ordered, { ...ordered, additionalRamId: 2001 }).replaces).toEqual(["additionalRamId"]);
    });
});

const server = (name: string, extra: object = {}) => ({ planId: 101, osId: 1012, hostname: `${name}.example.com`, __resourceKey: `urn:pulumi:dev::p::edis:index:KvmServer::${name}`, ...extra });
const checker = (config: Record<string, string>) => {
    const kvm = kvmServerOn(new InProcess(config).core);
    return async (olds: object, news: object) => (await kvm.check(olds as never, news as never)).failures ?? [];
};

test("edis:maxNewServers counts each resource a deployment would order, once; adoptions and in-place changes do not count", async () => {
    const failuresOf = checker({ "edis:maxNewServers": "2", "edis:journalUrl": `file://${mkdtempSync(join(tmpdir(), "edis-journal-"))}` });
    expect(await failuresOf({}, server("a"))).toEqual([]);
    expect(await failuresOf({}, server("a"))).toEqual([]);
    expect(await failuresOf({}, server("b", { adoptKvmId: "kvm_1_1" }))).toEqual([]);
    expect(await failuresOf(server("c", { billingCycle: "monthly" }), server("c", { cancellationType: "Immediate" }))).toEqual([]);
    expect(await failuresOf({}, server("d"))).toEqual([]);
    // Adopted or imported earlier (an import is declared as adopted): old inputs without a plan, and nothing is ordered.
    expect(await failuresOf({ hostname: "g.example.com", adoptKvmId: "kvm_1_1" }, server("g"))).toEqual([]);
    expect(await failuresOf({}, server("e"))).toEqual([{ property: "hostname", reason: expect.stringContaining("e.example.com would be server 3 that this deployment orders") }]);
    expect(resolveConfig((k) => ({ maxNewServers: "2.5" })[k], {}).problems).toEqual([expect.stringContaining("must be a whole number")]);
});

test("each server a deployment orders is priced under it, with the running total: plan per cycle, add-ons per month", async () => {
    const { sim, config } = await simulatorAndCore({ provisioningDelayMs: 0 });
    try {
        const e = new InProcess(config);
        const failuresOf = async (olds: object, news: object) => (await kvmServerOn(e.core).check(olds as never, news as never)).failures ?? [];
        expect(await failuresOf({}, server("a"))).toEqual([]);
        expect(await failuresOf({}, server("b", { planId: 102, billingCycle: "quarterly", additionalIpId: 2201 }))).toEqual([]);
        // An in-place change orders nothing: no line.
        expect(await failuresOf(server("c", { billingCycle: "monthly" }), server("c", { cancellationType: "Immediate" }))).toEqual([]);
        expect(e.text).toEqual([
            "pulumi-edis: a.example.com: orders KVM S, billed monthly: 4.50 EUR/month at list price before tax; this deployment adds 4.50 EUR/month so far",
            "pulumi-edis: b.example.com: orders KVM M with +1 IPv4 Address, billed quarterly (23.28 EUR): 9.26 EUR/month at list price before tax; this deployment adds 13.76 EUR/month so far",
        ]);
        expect(sim.calls("add/order")).toEqual([]);

        // edis:maxAddedMonthlySpend: the order that would pass it, or one priced in another currency, is refused.
        const tenEuros = checker({ ...config, "edis:maxAddedMonthlySpend": "10 EUR" });
        expect(await tenEuros({}, server("a"))).toEqual([]);
        expect(await tenEuros({}, server("b", { planId: 102, billingCycle: "quarterly", additionalIpId: 2201 }))).toEqual([
            { property: "planId", reason: "b.example.com (9.26 EUR/month) would bring what this deployment adds to 13.76 EUR/month, past config `edis:maxAddedMonthlySpend` (or EDIS_MAX_ADDED_MONTHLY_SPEND) (10.00 EUR): it is not ordered" },
        ]);
        expect(await checker({ ...config, "edis:maxAddedMonthlySpend": "20 usd" })({}, server("a"))).toEqual([
            { property: "planId", reason: "a.example.com is priced in EUR, and config `edis:maxAddedMonthlySpend` (or EDIS_MAX_ADDED_MONTHLY_SPEND) is 20.00 USD: it is not ordered" },
        ]);
        expect(resolveConfig((k) => ({ maxAddedMonthlySpend: "fifty" })[k], {}).problems).toEqual([expect.stringContaining('must be an amount and a currency, such as "50 EUR", got "fifty"')]);
    } finally {
        await sim.stop();
    }
});
