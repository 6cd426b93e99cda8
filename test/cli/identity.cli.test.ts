// A paid write's identity where the engine decides it: renames, a stack removed and created again, replacements.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runNamedCommand } from "../support/journalCommand";
import { CliStack } from "./pulumi";
import { SERVERS, cliStacksPerTest, declare, failed, ok, paidWrites, upKilledWhileProvisioning } from "./support";
import { OrderJournal } from "../../provider/journal";

const TYPE = "pulumi-nodejs:dynamic/edis:KvmServer";
const web = { planId: 101, osId: 1012, hostname: "web1.example.com" };

const open = cliStacksPerTest();

async function serverUrns(stack: CliStack): Promise<Record<string, string | undefined>> {
    const resources = (await stack.deployment()).resources ?? [];
    return Object.fromEntries(resources.filter((r) => r.type === TYPE).map((r) => [r.urn, r.id]));
}

test("case 1: servers named `server` in two component types are two URNs, two orders, two journal identities; the next up changes nothing", async () => {
    const { sim, stack } = await open(SERVERS);
    await declare(stack, {});
    const tier = (hostname: string) => JSON.stringify({ server: { ...web, hostname } });
    await stack.setConfig({ "edis-servers:components": `{"WebTier":${tier("web.example.com")},"DbTier":${tier("db.example.com")}}` });
    ok(await stack.up());
    const urns = await serverUrns(stack);
    expect(Object.keys(urns).sort()).toEqual([
        `urn:pulumi:dev::edis-servers::test:index:DbTier$${TYPE}::server`,
        `urn:pulumi:dev::edis-servers::test:index:WebTier$${TYPE}::server`,
    ]);
    expect(new Set(Object.values(urns)).size).toBe(2);
    // The SDK's journal key is the engine's URN, parents' types included.
    const resources = (await stack.deployment()).resources ?? [];
    for (const r of resources.filter((x) => x.type === TYPE)) expect(r.outputs!.__resourceKey).toBe(r.urn);
    ok(await stack.preview(["--expect-no-changes"]));
    // `pulumi import` of a dynamic resource: the engine cannot (docs/_index.md quotes its words), and nothing is ordered.
    const imported = failed(await stack.run(["import", TYPE, "other", "1003", "--yes"]));
    expect(imported.output).toContain("code must be a string, not undefined");
    expect(Object.keys(await serverUrns(stack))).toHaveLength(2);
    expect(paidWrites(sim)).toEqual(["add/order", "add/order"]);
});

test("case 2: killed after add/order answered, then the resource renamed with an alias: the next up resumes that order, one add/order", async () => {
    const { sim, stack } = await open(SERVERS, { sim: { provisioningDelayMs: 4000 } });
    await declare(stack, { web });
    await upKilledWhileProvisioning(sim, stack);
    ok(await stack.run(["cancel", "--yes"]));
    expect(paidWrites(sim)).toEqual(["add/order"]);

    await declare(stack, { front: web }, { front: { aliases: [{ name: "web" }] } });
    const resumed = ok(await stack.up());
    expect(resumed.output).toContain(`now belong to urn:pulumi:dev::edis-servers::${TYPE}::front (its alias)`);
    expect(resumed.output).toContain("it is in the order journal, so it is waited for, not ordered again");
    expect(await serverUrns(stack)).toEqual({ [`urn:pulumi:dev::edis-servers::${TYPE}::front`]: "1003" });
    expect(paidWrites(sim)).toEqual(["add/order"]);
});

test.each([
    ["prod", "edis-servers"],
    ["organization/edis-servers-renamed/prod", "edis-servers-renamed"],
])("case 2: killed after add/order answered, then the stack renamed to %s: the next up names the entry and the command that claims it; then it resumes, one add/order", async (to, project) => {
    const { sim, stack } = await open(SERVERS, { sim: { provisioningDelayMs: 4000 } });
    await declare(stack, { web });
    await upKilledWhileProvisioning(sim, stack);
    ok(await stack.run(["cancel", "--yes"]));
    await stack.renameStack(to);
    // A stack moved to another project runs under that project's name.
    const manifest = join(stack.project.dir, "Pulumi.yaml");
    writeFileSync(manifest, readFileSync(manifest, "utf8").replace(/^name: .*$/m, `name: ${project}`));

    const blocked = failed(await stack.up());
    expect(blocked.output).toContain(`the order journal holds an unfinished order for urn:pulumi:dev::edis-servers::${TYPE}::web (service 1003)`);
    expect(paidWrites(sim)).toEqual(["add/order"]);
    expect(await runNamedCommand(blocked.output, "move")).toContain("moved:");

    const resumed = ok(await stack.up());
    expect(resumed.output).toContain("it is in the order journal, so it is waited for, not ordered again");
    expect(await serverUrns(stack)).toEqual({ [`urn:pulumi:prod::${project}::${TYPE}::web`]: "1003" });
    expect(paidWrites(sim)).toEqual(["add/order"]);
});

test("case 3: a finished up leaves no entry; after `stack rm --force` and `stack init`, a leftover entry of a dead engine takes the server back, or, when EDIS confirms it gone, orders again only after a run that checks the order", async () => {
    const f = await open(SERVERS);
    const { sim, stack } = f;
    await declare(stack, { web });
    ok(await stack.up());
    // The program settled the entry as soon as the engine had saved the server.
    const journal = new OrderJournal(join(stack.project.dir, ".pulumi-edis", "journal"));
    expect((await journal.list()).filter((e) => e.kind === "order")).toEqual([]);

    // What an engine that died between the provider's answer and its checkpoint leaves: a "created" entry, no state.
    const service = sim.account.state.services[0];
    const key = `urn:pulumi:dev::edis-servers::${TYPE}::web`;
    const leftover = { kind: "order" as const, state: "created" as const, key, hostname: web.hostname, sentAt: new Date().toISOString(), inputs: web, serviceId: service.serviceId, kvmId: service.kvmId, invoicePaid: true, orderId: service.orderId };
    await stack.removeAndInitAgain();
    await declare(stack, { web });
    await journal.write(leftover);
    const back = ok(await stack.up());
    expect(back.output).toContain("was created for this resource earlier and is still at EDIS; it is taken back, not ordered again");
    expect(await serverUrns(stack)).toEqual({ [key]: String(service.serviceId) });
    expect(paidWrites(sim)).toEqual(["add/order"]);

    // The same leftover after the server was cancelled behind Pulumi's back: EDIS confirms it gone.
    await stack.removeAndInitAgain();
    await declare(stack, { web });
    await new OrderJournal(journal.dir).write(leftover); // a journal that never saw the entry (this one saw it settled): it writes over what is there
    sim.account.cancelService(service, "Immediate");
    const seen = sim.log.length;
    const again = failed(await stack.up());
    // Orders nothing in the run whose check skipped the order's checks for the entry; the next run orders, checked.
    expect(again.output).toContain("is gone at EDIS; its journal entry is dropped. Nothing was ordered");
    expect(paidWrites(sim)).toEqual(["add/order"]);
    await stack.setConfig({ "edis:maxNewServers": "0" });
    expect(failed(await stack.up()).output).toContain("allows 0: it is not ordered");
    await stack.setConfig({ "edis:maxNewServers": "5" });
    ok(await stack.up());
    // Never stalls: the gone server is asked about once, not polled as if it were still being provisioned.
    expect(sim.log.slice(seen).filter((e) => e.endpoint === "get/kvmid" && e.fields.serviceid === String(service.serviceId)).length).toBeLessThanOrEqual(1);
    expect(paidWrites(sim)).toEqual(["add/order", "add/order"]);
});

test("case 13: a replacement whose add/order answer was lost: the error tells the old server from the new, and adopting the old one is refused", async () => {
    const { sim, stack } = await open(SERVERS);
    await declare(stack, { web });
    ok(await stack.up());
    const old = sim.account.state.services[0];
    sim.inject({ endpoint: "add/order", drop: "after" });
    await declare(stack, { web: { ...web, osId: 1024 } });
    const lost = failed(await stack.up());
    expect(lost.output).toContain(`the server being replaced (service ${old.serviceId}, KVM ${old.kvmId}) carries the same description and is NOT the new one`);

    await declare(stack, { web: { ...web, osId: 1024, adoptKvmId: old.kvmId } });
    const refused = failed(await stack.up());
    expect(refused.output).toContain("would adopt the same server and the old half's delete would cancel it");
    expect(paidWrites(sim)).toEqual(["add/order", "add/order"]);
    expect(sim.account.state.cancellations).toEqual([]);
    expect(await serverUrns(stack)).toEqual({ [`urn:pulumi:dev::edis-servers::${TYPE}::web`]: String(old.serviceId) });
});

test("case 14: a replacement killed after its add/order answered, then the program reverted: every up and refresh names the billed server", async () => {
    const { sim, stack } = await open(SERVERS, { sim: { provisioningDelayMs: 4000 } });
    await declare(stack, { web });
    ok(await stack.up());
    sim.account.advance();
    await declare(stack, { web: { ...web, osId: 1024 } });
    await upKilledWhileProvisioning(sim, stack, "SIGKILL", 2);
    ok(await stack.run(["cancel", "--yes"]));
    const orphan = sim.account.state.services[1].serviceId;

    await declare(stack, { web });
    const warning = `but the order journal records service ${orphan}`;
    const up = ok(await stack.up());
    expect(up.ops.web ?? []).not.toContain("create");
    expect(up.output).toContain(warning);
    expect(ok(await stack.refresh()).output).toContain(warning);
    expect(paidWrites(sim)).toEqual(["add/order", "add/order"]);
});
