// Deployments killed mid-call via the real CLI, each when a chosen call reaches the simulator: no clock decides it.
import { join } from "node:path";
import { OrderJournal } from "../../provider/journal";
import { until } from "../support/sim";
import { SERVERS, cliStacksPerTest, declare, expectNoCredentials, failed, ok, paidWrites } from "./support";

const web1 = { planId: 101, osId: 1012, hostname: "web1.example.com" };
const open = cliStacksPerTest();

test("the provider host alone dies while it waits for provisioning: the create fails, and the next up resumes it without a second order", async () => {
    const f = await open(SERVERS);
    const { sim, stack } = f;
    await declare(stack, { web1 });
    sim.holdByEndpoint["get/kvmid"] = async () => {
        delete sim.holdByEndpoint["get/kvmid"];
        stack.killProviderHosts();
    };
    const up = failed(await stack.up());
    expect(up.ops.web1).toEqual(["create!"]);
    // The engine heard the create fail: no resource, and no pending create.
    expect(await stack.resources()).toEqual({});
    expect((await stack.deployment()).pending_operations ?? []).toEqual([]);
    const rerun = ok(await stack.up());
    expect(rerun.output).toContain("it is in the order journal, so it is waited for, not ordered again");
    expect(Object.values(await stack.resources()).map((r) => r.id)).toEqual([String(sim.account.state.services[0].serviceId)]);
    expect(paidWrites(sim)).toEqual(["add/order"]);
    await expectNoCredentials(f);
});

test("the whole deployment killed while add/order was at EDIS, which made the order: the rerun orders nothing and says where to look; the user adopts the server", async () => {
    const f = await open(SERVERS);
    const { sim, stack } = f;
    await declare(stack, { web1 });
    sim.holdByEndpoint["add/order"] = async () => stack.crash();
    await stack.up().finally(() => delete sim.holdByEndpoint["add/order"]);
    await until(() => sim.account.state.services.length > 0, "EDIS makes the order the dead deployment sent");
    ok(await stack.run(["cancel", "--yes"]));

    const blocked = failed(await stack.up());
    expect(blocked.output).toContain("the order for web1.example.com may or may not have been made: the deployment that sent it at");
    expect(blocked.output).toContain("If the order exists, pay it (or cancel it there) and, once its server is provisioned, set adoptKvmId to its KVM id on this resource");
    expect(paidWrites(sim)).toEqual(["add/order"]);

    // The user finds it in the client area, once EDIS has provisioned it.
    await until(() => (sim.account.advance(), !!sim.account.state.services[0].kvmId), "EDIS provisions it");
    await declare(stack, { web1: { ...web1, adoptKvmId: sim.account.state.services[0].kvmId } });
    const adopted = ok(await stack.up());
    expect(Object.values(await stack.resources()).map((r) => r.id)).toEqual([String(sim.account.state.services[0].serviceId)]);
    expect(paidWrites(sim)).toEqual(["add/order"]);
    // The killed run's pending create stays (and is warned of) until the user clears it (`pulumi refresh --clear-pending-creates`).
    expect(adopted.output).toContain("pending operations from previous deployment");
    expect((await stack.deployment()).pending_operations).toHaveLength(1);
    // The adoption settled the order's entry; what remains is the adoption's record, under the server.
    expect((await new OrderJournal(join(stack.project.dir, ".pulumi-edis", "journal")).list()).map((e) => e.kind)).toEqual(["adoption"]);
    // Adoption is a one-time import: removing adoptKvmId afterwards, as one removes `import:`, changes nothing.
    await declare(stack, { web1 });
    expect(ok(await stack.up(["--expect-no-changes"])).ops.web1).toEqual(["same"]);
    ok(await stack.destroy());
    expect(paidWrites(sim)).toEqual(["add/order", "cancel/product"]);
    await expectNoCredentials(f);
});

test("the whole deployment killed while hooks/set was at EDIS, which made the hook: the rerun sends nothing and says a hook may exist", async () => {
    const f = await open(SERVERS);
    const { sim, stack } = f;
    await declare(stack, { web1 });
    ok(await stack.up());
    await stack.setConfig({ "edis-servers:alerts": JSON.stringify({ web1: 80 }) });
    sim.holdByEndpoint["hooks/set"] = async () => stack.crash();
    await stack.up().finally(() => delete sim.holdByEndpoint["hooks/set"]);
    const hooks = () => sim.account.state.services[0].hooks ?? [];
    await until(() => hooks().length > 0, "EDIS adds the hook the dead deployment asked for");
    ok(await stack.run(["cancel", "--yes"]));

    const rerun = failed(await stack.up());
    expect(rerun.output).toContain("pending operations from previous deployment");
    expect(rerun.output).toContain("may or may not have been made: the deployment that sent it at");
    expect(sim.calls("hooks/set")).toHaveLength(1);
    expect(hooks()).toHaveLength(1);
    await expectNoCredentials(f);
});

test("with PULUMI_SKIP_CHECKPOINTS the engine saves nothing before the end: a deployment killed after a create returned leaves its order's entry, and the rerun takes the server back without a second order", async () => {
    const f = await open(SERVERS);
    const { sim, stack } = f;
    await declare(stack, { web1 });
    await stack.setConfig({ "edis-servers:alerts": JSON.stringify({ web1: 80 }) });
    const journal = new OrderJournal(join(stack.project.dir, ".pulumi-edis", "journal"));
    // hooks/set follows web1's registration answer, on which the program would settle the entry with checkpoints saved.
    let entries: string[] = [];
    sim.holdByEndpoint["hooks/set"] = async () => {
        entries = (await journal.list()).filter((e) => e.kind === "order").map((e) => `${e.kind} ${e.state}`);
        stack.crash();
    };
    await stack.up([], { env: { PULUMI_SKIP_CHECKPOINTS: "true" } }).finally(() => delete sim.holdByEndpoint["hooks/set"]);
    expect(entries).toEqual(["order created"]);
    expect(await stack.resources()).toEqual({});
    ok(await stack.run(["cancel", "--yes"]));
    await stack.setConfig({ "edis-servers:alerts": "{}" });
    ok(await stack.up());
    expect(Object.values(await stack.resources()).map((r) => r.id)).toEqual([String(sim.account.state.services[0].serviceId)]);
    expect(paidWrites(sim)).toEqual(["add/order"]);
});
