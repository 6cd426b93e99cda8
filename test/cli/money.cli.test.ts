/**
 * The money cases that the real engine decides, through the real `pulumi` CLI against the simulator: the CLI
 * killed with SIGKILL after add/order answered, a lost add/order answer, and what `pulumi import` and
 * `--import-pending-creates` do (an unpaid create, with and without `options.refresh: always`, and a replacement:
 * lifecycle.cli.test.ts). The simulator's record of paid writes is the witness every time.
 */
import { join } from "node:path";
import { PACKAGE_ROOT } from "../support/workspace";
import { SERVERS, cliStacksPerTest, declare, failed, ok, paidWrites, upKilledWhileProvisioning } from "./support";

const URN = "urn:pulumi:dev::edis-servers::pulumi-nodejs:dynamic/edis:KvmServer::web";
const web = { planId: 101, osId: 1012, hostname: "web1.example.com" };

const open = cliStacksPerTest();

// A plain `pulumi up` after the same kill is identity.cli's case 2 (with an alias) and plugin.cli's (through the plugin).
test("pulumi killed with SIGKILL after add/order answered, while it waits for provisioning: `pulumi cancel`, `pulumi refresh --import-pending-creates <urn> <id>`, then `pulumi up` orders nothing", async () => {
    const f = await open(SERVERS, { sim: { provisioningDelayMs: 5000 } });
    const { sim, stack } = f;
    await declare(stack, { web });
    await upKilledWhileProvisioning(sim, stack);
    expect(paidWrites(sim)).toEqual(["add/order"]);
    // The engine checkpointed a pending create and no resource; the file backend keeps the dead run's lock.
    const d = await stack.deployment();
    expect(d.pending_operations).toEqual([expect.objectContaining({ type: "creating", resource: expect.objectContaining({ urn: URN }) })]);
    expect((d.resources ?? []).filter((r) => r.urn === URN)).toEqual([]);
    expect(failed(await stack.up()).output).toContain("the stack is currently locked");
    ok(await stack.run(["cancel", "--yes"]));

    // The engine drops the pending create but imports nothing: a dynamic resource cannot be read without the
    // __provider that only a create or an update stores.
    const refreshed = ok(await stack.refresh(["--import-pending-creates", URN, "--import-pending-creates", "1003"]));
    expect(refreshed.ops).toEqual({});
    expect((await stack.deployment()).pending_operations ?? []).toEqual([]);
    expect(await stack.resources()).toEqual({});

    // The next up creates the resource again: the journal resumes the order.
    const again = ok(await stack.up());
    expect(again.output).toContain("it is in the order journal, so it is waited for, not ordered again");
    expect(again.ops.web).toEqual(["create"]);
    expect((await stack.resources()).web.outputs).toMatchObject({ serviceId: 1003, kvmId: expect.stringMatching(/^kvm_/) });
    expect(paidWrites(sim)).toEqual(["add/order"]);
    ok(await stack.destroy());
    expect(paidWrites(sim)).toEqual(["add/order", "cancel/product"]);
});

test("catalogue drift under the examples' ignoreChanges: a newer Debian and a cheaper plan change nothing and bill nothing", async () => {
    const f = await open(join(PACKAGE_ROOT, "examples", "basic"));
    const { sim, stack } = f;
    ok(await stack.up());
    for (const plan of sim.account.plans.filter((p) => p.locationId === 1)) plan.addons["operating system"]!.push({ id: 1013, description: "Debian 13 (64bit)" });
    sim.account.plans.push({ ...sim.account.plans.find((p) => p.pid === 102)!, pid: 150, name: "KVM M2", monthly: 6 });
    sim.clearLog();
    ok(await stack.preview(["--expect-no-changes"]));
    const up = ok(await stack.up(["--expect-no-changes"]));
    expect(up.ops.web).toEqual(["refresh", "same"]);
    expect(paidWrites(sim)).toEqual([]);
});

test("`pulumi import` of a KvmServer: the engine cannot import a dynamic resource, and nothing is ordered", async () => {
    const f = await open(SERVERS);
    const { sim, stack } = f;
    await declare(stack, { web });
    ok(await stack.up());
    const imported = failed(await stack.run(["import", "pulumi-nodejs:dynamic/edis:KvmServer", "other", "1003", "--yes"]));
    expect(imported.output).toContain("code must be a string, not undefined");
    expect(Object.keys(await stack.resources())).toEqual(["web"]);
    expect(paidWrites(sim)).toEqual(["add/order"]);
});
