// The README's "Unit tests of your program" word for word: setMocks, lookups answered by pulumi-edis/testing's account.
import * as pulumi from "@pulumi/pulumi";
import * as edisTesting from "pulumi-edis/testing";
import { simulatorAndCore, upServer } from "./support/inProcess";

/** Every registration the mocks answered, with the state they gave it. */
const registered: Array<{ type: string; name: string; state: Record<string, unknown> }> = [];
const base = edisTesting.mocks();

let account: edisTesting.TestAccount;
beforeAll(async () => {
    pulumi.runtime.setMocks(
        {
            async newResource(args) {
                const answer = await base.newResource(args);
                registered.push({ type: args.type, name: args.name, state: answer.state });
                return answer;
            },
            call: base.call,
        },
        "project",
        "stack",
        false,
    );
    account = await edisTesting.startTestAccount();
});
afterAll(() => account.stop());

/** Output keys that carry a value, without the engine's and the journal's own. */
function valueKeys(state: Record<string, unknown>): string[] {
    return Object.keys(state)
        .filter((k) => !k.startsWith("__") && state[k] !== undefined && state[k] !== null)
        .sort();
}

/** The value of an Output, as a unit test reads it. */
function valueOf<T>(output: pulumi.Output<T>): Promise<T> {
    return new Promise((resolve) => output.apply(resolve));
}

test("examples/basic chooses KVM M with Debian 12 in Frankfurt, and nothing is ordered", async () => {
    const infra = await import("../examples/basic/index");
    expect(await valueOf(infra.planName)).toBe("KVM M");
    expect(await valueOf(infra.osName)).toBe("Debian 12 (64bit)");
    expect(await valueOf(infra.monthlyPrice)).toBe("8.00 EUR");
    expect(await valueOf(infra.kvmId)).toMatch(/^kvm_\d+_000000$/);
    expect(account.simulator.calls().map((c) => c.endpoint).sort()).toEqual(["get/locations", "get/products"]);
    expect(account.simulator.account.state.orders).toEqual([]);
});

test("examples/day-two under the mocks: the Management API resources get outputs, without their passwords", async () => {
    pulumi.runtime.setConfig("project:sshPublicKey", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINrWGRolS8WmRbi62V96xA7WjSOMTE/l86PC+sXZS5SN ops@example");
    pulumi.runtime.setConfig("project:vncPassword", "Abcd1234");
    const infra = await import("../examples/day-two/index");
    expect(await valueOf(infra.powerState)).toBe("on");
    expect(await valueOf(infra.vncEndpoint)).toMatch(/^[a-z0-9.-]+:\d+$/);
    expect(await valueOf(infra.trafficHookId)).toEqual(expect.any(Number));
    const management = registered.filter((r) => /:(VncAccess|TrafficAlert)$/.test(r.type));
    expect(management.map((r) => r.type.split(":").pop()).sort()).toEqual(["TrafficAlert", "VncAccess"]);
    for (const r of management) {
        expect(Object.keys(r.state)).not.toEqual(expect.arrayContaining(["password"]));
        expect(Object.keys(r.state)).not.toEqual(expect.arrayContaining(["callbackPassword"]));
        expect(JSON.stringify(r.state)).not.toContain("Abcd1234");
    }
    expect(account.simulator.account.state.orders).toEqual([]);
});

test("a KvmServer under the mocks has the outputs a real create gives it: the same keys", async () => {
    const { sim, next } = await simulatorAndCore();
    try {
        const args = { planId: 102, osId: 1012, hostname: "keys.example.com" };
        const real = valueKeys((await upServer(next, undefined, args)).held.outs);
        const mocked = await base.newResource({ type: edisTesting.KVM_SERVER_TYPE, name: "keys", inputs: args, custom: true } as pulumi.runtime.MockResourceArgs);
        expect(valueKeys(mocked.state)).toEqual(real);
    } finally {
        await sim.stop();
    }
});
