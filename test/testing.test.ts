/**
 * The README's "Unit tests of your program", word for word: examples/basic under Pulumi's setMocks, its
 * lookups answered by the simulated account that pulumi-edis/testing starts in this process.
 */
import * as pulumi from "@pulumi/pulumi";
import * as edisTesting from "pulumi-edis/testing";

let account: edisTesting.TestAccount;
beforeAll(async () => {
    pulumi.runtime.setMocks(edisTesting.mocks(), "project", "stack", false);
    account = await edisTesting.startTestAccount();
});
afterAll(() => account.stop());

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
    expect(await valueOf(infra.vncEndpoint)).toBe("vnc.edis-test.invalid:5901");
    expect(await valueOf(infra.trafficHookId)).toEqual(expect.any(Number));
    expect(account.simulator.account.state.orders).toEqual([]);
});
