// What is whose, via the real CLI and both doors (DESIGN.md section 4): one server, one holder (renames are the
// engine's, letting go is `pulumi state delete`); an unknown order blocks any endpoint spelling but no other stack;
// a cancel "success" naming another service cancels nothing; an unreadable listing entry or catalogue affects only it.
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runNamedCommand } from "../support/journalCommand";
import { OrderJournal } from "../../provider/journal";
import { until } from "../support/sim";
import { CliFixture, DOORS, Door, cliStacksPerTest, failed, ok, openDoor, paidWrites } from "./support";

const open = cliStacksPerTest();
const web = { planId: 101, osId: 1012, hostname: "web1.example.com" };

/** A fixture of `door` whose first up ordered `servers`. */
async function stackFor(door: Door, servers: Record<string, object>): Promise<CliFixture> {
    const f = await openDoor(open, door, servers);
    ok(await f.stack.up());
    return f;
}

const cancelled = (f: CliFixture) => f.sim.account.state.cancellations.map((c) => c.serviceId);

describe.each(DOORS)("through $name", (door) => {
    test("adoption: a KVM the stack holds cannot be adopted a second time; A removed and B adopting A's KVM in one up: A's delete fails before any cancel with the command that lets it go, the next up too; then B holds it; the stack renamed, then B renamed with an alias: destroy cancels it once", async () => {
        const f = await stackFor(door, { web });
        const { serviceId, kvmId } = f.sim.account.state.services[0];
        const twin = { ...web, hostname: "twin.example.com", adoptKvmId: kvmId };
        await door.declare(f.stack, { web, twin });
        // Whichever the engine sees first (the holder's diff, the adopter's create), the adopter is refused, naming the holder.
        const doubled = failed(await f.stack.up());
        expect(doubled.output).toContain(`${door.urn("twin")} and ${door.urn("web")} both hold service ${serviceId}, ${kvmId}`);
        expect(Object.keys(await f.stack.resources())).toEqual(["web"]);
        await door.declare(f.stack, { web });
        ok(await f.stack.preview(["--expect-no-changes"]));

        await door.declare(f.stack, { twin });
        for (let run = 0; run < 2; run++) {
            const refused = failed(await f.stack.up());
            expect(refused.output).toContain(`is also held by ${door.urn("twin")}; it was not cancelled`);
            expect(refused.output).toContain(`pulumi state delete '${door.urn("web")}'`);
            expect(cancelled(f)).toEqual([]);
            expect(Object.keys(await f.stack.resources()).sort()).toEqual(["twin", "web"]);
        }
        // A deployment that sees only the old resource (no diff of the adopter): its delete still refuses, by the adoption's record.
        const targeted = failed(await f.stack.destroy(["--target", door.urn("web")]));
        expect(targeted.output).toContain(`is also held by ${door.urn("twin")}; it was not cancelled`);
        expect(targeted.output).toMatch(/orders forget [0-9a-f]{16} --kind adoption/);
        expect(cancelled(f)).toEqual([]);
        ok(await f.stack.run(["state", "delete", door.urn("web"), "--yes"]));
        ok(await f.stack.up(["--expect-no-changes"]));

        // The adopter's record follows the engine's renames: of the stack, then of the resource (an alias).
        const webUrn = door.urn("web");
        await f.stack.renameStack("prod");
        await door.declare(f.stack, { front: twin }, { front: "twin" });
        ok(await f.stack.up());
        expect(Object.keys(await f.stack.resources())).toEqual(["front"]);
        // The record keeps the holder before the adoption, until the user says it is let go (web was, above).
        const kept = failed(await f.stack.destroy());
        expect(kept.output).toContain(`was adopted by this resource from ${webUrn}, which may still hold it`);
        expect(cancelled(f)).toEqual([]);
        await runNamedCommand(kept.output, "forget", f.stack.project.dir);
        const destroyed = ok(await f.stack.destroy());
        expect(destroyed.output).not.toContain("not cancelled");
        expect(cancelled(f)).toEqual([serviceId]);
        expect(await f.stack.resources()).toEqual({});
        expect(paidWrites(f.sim)).toEqual(["add/order", "cancel/product"]);
    });

    test("a KVM another resource holds, adopted with --target (which diffs nothing else): no one's delete cancels it, each names the other; an import of it is refused, naming its holder", async () => {
        const f = await stackFor(door, { web });
        const { kvmId } = f.sim.account.state.services[0];
        await door.declare(f.stack, { web, twin: { ...web, hostname: "twin.example.com", adoptKvmId: kvmId } });
        ok(await f.stack.up(["--target", door.urn("twin")]));
        expect(failed(await f.stack.destroy(["--target", door.urn("twin")])).output).toContain(`was adopted by this resource from ${door.urn("web")}`);
        expect(failed(await f.stack.destroy(["--target", door.urn("web")])).output).toContain(`is also held by ${door.urn("twin")}; it was not cancelled`);
        if (door === DOORS[1]) {
            const { serviceId } = f.sim.account.state.services[0];
            const imported = failed(await f.stack.run(["import", "edis:index:KvmServer", "copy", String(serviceId), "--yes", "--protect=false"]));
            expect(imported.output).toContain(`is held by ${door.urn("twin")} (the order journal's holder record), so ${door.urn("copy")} may not take it too`);
            expect(Object.keys(await f.stack.resources()).sort()).toEqual(["twin", "web"]);
        }
        expect(cancelled(f)).toEqual([]);
        expect(paidWrites(f.sim)).toEqual(["add/order"]);
    });

    test("two servers let go and adopted the other way round (as the batch advice has it): each delete names what to do, and once the user says so, destroy cancels both", async () => {
        const db = { ...web, hostname: "db1.example.com" };
        const f = await stackFor(door, { web, db });
        const [one, two] = f.sim.account.state.services;
        for (const name of ["web", "db"]) ok(await f.stack.run(["state", "delete", door.urn(name), "--yes"]));
        await door.declare(f.stack, { web: { ...web, adoptKvmId: two.kvmId }, db: { ...db, adoptKvmId: one.kvmId } });
        ok(await f.stack.up());
        let refused = failed(await f.stack.destroy());
        expect(refused.output).toContain("or holds another server");
        expect(cancelled(f)).toEqual([]);
        for (let i = 0; i < 2 && refused.code !== 0; i++) {
            await runNamedCommand(refused.output, "forget", f.stack.project.dir);
            refused = await f.stack.destroy();
        }
        expect(refused.code).toBe(0);
        expect(cancelled(f).sort()).toEqual([one.serviceId, two.serviceId]);
    });

    test("an order EDIS made but answered 500 blocks the next up, and still blocks with the endpoint spelled another way; preview in CI warns of a journal on the runner's disk", async () => {
        const f = await openDoor(open, door, { web }, { sim: { faults: [{ endpoint: "add/order", processed: true, status: 500, json: { status: "error", message: "Internal error" } }] } });
        // In CI, with the journal on the runner's disk, preview says what a thrown-away runner takes along.
        const warning = "runs in CI with the order journal on this machine's disk";
        expect(ok(await f.stack.preview([], { env: { CI: "true" } })).output).toContain(warning);
        const blocked = failed(await f.stack.up());
        expect(blocked.output).toContain("may or may not have been made");
        // Where to look: an unpaid order has no server yet, so the account's servers cannot show that nothing was ordered.
        expect(blocked.output).toContain(`Look in the EDIS client area's Orders and Invoices for an order of "web1.example.com"`);
        expect(blocked.output).not.toContain("edis.getKvmSessions() and look");
        expect(blocked.output).not.toContain(warning);
        const url = new URL(f.sim.url);
        for (const spelling of [`http://localhost:${url.port}`, `${f.sim.url}/`]) {
            await f.stack.setConfig({ "edis:baseUrl": spelling });
            expect([spelling, failed(await f.stack.up()).output]).toEqual([spelling, expect.stringContaining("may or may not have been made")]);
        }
        // Renamed without an alias (it never reached state, so there is none to give): the same intent still blocks.
        await door.declare(f.stack, { web2: web });
        expect(failed(await f.stack.up()).output).toContain("the same intent in this stack");
        expect(paidWrites(f.sim)).toEqual(["add/order"]);
        // As the error says: once provisioned, the program adopts the server, which settles the block.
        await until(() => (f.sim.account.advance(), !!f.sim.account.state.services[0]?.kvmId), "EDIS provisions the order");
        const { serviceId, kvmId } = f.sim.account.state.services[0];
        await door.declare(f.stack, { web: { ...web, adoptKvmId: kvmId } });
        ok(await f.stack.up());
        expect((await f.stack.resources()).web.id).toBe(String(serviceId));
        expect(paidWrites(f.sim)).toEqual(["add/order"]);
    });

    test("dev and prod of one directory each order their own server; an entry the engine may not have saved, of this stack before a rename (into another project too), still stops the write", async () => {
        const f = await stackFor(door, { web });
        const dev = f.stack.stack;
        f.stack.stack = "prod";
        ok(await f.stack.run(["stack", "init"]));
        // prod's config is dev's (the same passphrase and account), as a repository with two stack files holds it.
        copyFileSync(join(f.stack.project.dir, `Pulumi.${dev}.yaml`), join(f.stack.project.dir, "Pulumi.prod.yaml"));
        const prod = ok(await f.stack.up());
        expect(prod.output).not.toContain("unfinished order");
        expect(paidWrites(f.sim)).toEqual(["add/order", "add/order"]);
        f.stack.stack = dev;
        if (door.name.includes("plugin")) {
            // No provider code runs in a YAML program: dev's entry stays until dev's next operation; prod names it.
            expect(prod.output).toContain(`for ${door.urn("web", dev)}, a stack with another provider`);
            // Dead engine (no checkpoint), then `stack rename`: dev's entry stops the renamed stack (same provider id).
            ok(await f.stack.run(["state", "delete", door.urn("web", dev), "--yes"]));
            // `pulumi stack rename` may move the stack to another project too, whose name the program then takes.
            await f.stack.renameStack("organization/edis-yaml-renamed/staging");
            const program = join(f.stack.project.dir, "Pulumi.yaml");
            writeFileSync(program, JSON.stringify({ ...JSON.parse(readFileSync(program, "utf8")), name: "edis-yaml-renamed" }, null, 2));
            const blocked = failed(await f.stack.up());
            expect(blocked.output).toContain(`holds an unfinished order for ${door.urn("web", dev)}`);
            // Its first advice is the other stack's own next operation; the move is for a renamed stack only.
            expect(blocked.output).toMatch(/If that stack still exists, run `pulumi preview` or `pulumi up` there first.*If this stack was renamed from that one, run `node /s);
            expect(paidWrites(f.sim)).toEqual(["add/order", "add/order"]);
            await runNamedCommand(blocked.output, "move", f.stack.project.dir);
            expect(ok(await f.stack.up()).output).toContain("it is taken back, not ordered again");
            expect(paidWrites(f.sim)).toEqual(["add/order", "add/order"]);
        }
        ok(await f.stack.preview(["--expect-no-changes"]));
        // An operation that sees a server clears its entry (prod's waits for prod's); holder records stay until cancel.
        const all = await new OrderJournal(join(f.stack.project.dir, ".pulumi-edis", "journal")).list();
        const left = all.filter((e) => e.kind !== "adoption");
        expect(all.filter((e) => e.kind === "adoption").map((e) => e.state)).toEqual(["held", "held"]);
        expect(left.map((e) => `${e.key.split("::")[0]} ${e.state}`)).toEqual(door.name.includes("plugin") ? ["urn:pulumi:prod created"] : []);
    });

    test("two orders of one resource, each naming a service more than it had items: both extra services stay named", async () => {
        const f = await openDoor(open, door, { web });
        let extra = 9001;
        f.sim.inject({ endpoint: "add/order", times: 2, rewrite: (a) => ({ ...a, serviceids: `${String(a.serviceids)},${extra++}` }) });
        expect(failed(await f.stack.up()).output).toContain("service 9001 belongs to no resource and may be billed");
        // An osId change replaces the server: a second order, which names another service beyond its item.
        await door.declare(f.stack, { web: { ...web, osId: 1024 } });
        expect(failed(await f.stack.up()).output).toContain("service 9002 belongs to no resource and may be billed");
        expect((await f.stack.preview()).output).toContain("also named service(s) 9001, 9002");
        expect(paidWrites(f.sim)).toEqual(["add/order", "add/order"]);
    });

    test("one KVM of the account with an unreadable listing entry: refresh, preview and a new server's create go on; a cancel 'success' about another service cancels nothing", async () => {
        const f = await stackFor(door, { web });
        // A server no stack manages, listed with a field the specification types as a boolean set to null.
        const odd = { api_host: "odd.example.com", kvm_id: "kvm_999999_1", signature: "sig-odd", valid_until: 1999999999, lps: "x", lps_ispremium: null };
        f.sim.inject({ endpoint: "get/auth", times: 1000, rewrite: (a) => ({ ...a, data: { ...(a.data as object), kvm_999999_1: odd } }) });
        ok(await f.stack.refresh());
        ok(await f.stack.preview(["--refresh", "--expect-no-changes"]));
        await door.declare(f.stack, { web, web2: { ...web, hostname: "web2.example.com" } });
        ok(await f.stack.up());
        expect((await f.stack.resources()).web2.outputs).toMatchObject({ kvmId: expect.stringMatching(/^kvm_/) });
        expect(paidWrites(f.sim)).toEqual(["add/order", "add/order"]);

        const { serviceId } = f.sim.account.state.services[0];
        f.sim.inject({ endpoint: "cancel/product", json: { status: "success", serviceid: serviceId + 4000 } });
        await door.declare(f.stack, { web2: { ...web, hostname: "web2.example.com" } });
        const refused = failed(await f.stack.up());
        expect(refused.output).toContain(`the answer does not name service ${serviceId} in its serviceid field`);
        expect(refused.output).toContain(`pulumi state delete '${door.urn("web")}'`);
        // One that names no service in its serviceid field, only in words, is none either.
        f.sim.inject({ endpoint: "cancel/product", json: { status: "success", message: `Service ${serviceId + 4000} has been cancelled` } });
        expect(failed(await f.stack.up()).output).toContain(`the answer does not name service ${serviceId}`);
        expect(Object.keys(await f.stack.resources()).sort()).toEqual(["web", "web2"]);
        expect(f.sim.account.state.cancellations).toEqual([]);
        // A cancel refused in words that sound done while EDIS still lists the server: the server stays, the way out is named.
        f.sim.inject({ endpoint: "cancel/product", json: { status: "error", message: "Service has been cancelled effective 2031-01-31" } });
        const stays = failed(await f.stack.up());
        expect(stays.output).toContain("Service has been cancelled effective 2031-01-31");
        expect(stays.output).toContain("is still in the account's listing");
        expect(stays.output).toContain(`pulumi state delete '${door.urn("web")}'`);
        expect(Object.keys(await f.stack.resources()).sort()).toEqual(["web", "web2"]);
        // Once EDIS cancels it, the delete finishes.
        ok(await f.stack.up());
        expect(cancelled(f)).toEqual([serviceId]);
        expect(Object.keys(await f.stack.resources())).toEqual(["web2"]);
    });

    test("a mistyped edis: key fails the preview with the key it resembles; edis:maxNewServers refuses a new server and a replacement in preview and up; each order's list price shows in preview and up and is in state, an upgrade's preview shows what it adds, and edis:maxAddedMonthlySpend refuses the order past it; one location whose catalogue cannot be read: a plan elsewhere is ordered; a plan not found is 'cannot tell', naming that location", async () => {
        const f = await openDoor(open, door, { web });
        // Zurich's products (plan ids 4xx) come back as an HTML page, every time.
        f.sim.inject({ endpoint: "get/products", times: 1000, rewrite: (a) => (JSON.stringify(a).includes('"id":401') ? "<html>Bad gateway</html>" : a) });
        // A mistyped setting would leave its guard off: the preview fails, naming the setting it resembles.
        await f.stack.setConfig({ "edis:batchOrder": "true" });
        expect(failed(await f.stack.preview()).output).toContain("config `edis:batchOrder` is not a setting of the edis provider (did you mean `edis:batchOrders`?)");
        ok(await f.stack.run(["config", "rm", "edis:batchOrder"]));
        expect(paidWrites(f.sim)).toEqual([]);
        // What the update would order, priced under the server, in preview and in up.
        const priced = "web1.example.com: orders KVM S, billed monthly: 4.50 EUR/month at list price before tax; this deployment adds 4.50 EUR/month so far";
        expect(ok(await f.stack.preview()).output).toContain(priced);
        await f.stack.setConfig({ "edis:maxAddedMonthlySpend": "4 EUR" });
        expect(failed(await f.stack.preview()).output).toContain("past config `edis:maxAddedMonthlySpend` (or EDIS_MAX_ADDED_MONTHLY_SPEND) (4.00 EUR): it is not ordered");
        await f.stack.setConfig({ "edis:maxAddedMonthlySpend": "4.50 EUR" });
        expect(paidWrites(f.sim)).toEqual([]);
        expect(ok(await f.stack.up()).output).toContain(priced);
        // edis:maxNewServers counts what a deployment orders: a new server, and the new half of a replacement.
        await f.stack.setConfig({ "edis:maxNewServers": "0" });
        await door.declare(f.stack, { web, extra: { ...web, hostname: "extra.example.com" } });
        expect(failed(await f.stack.preview()).output).toContain("extra.example.com would be server 1 that this deployment orders, and config `edis:maxNewServers` (or EDIS_MAX_NEW_SERVERS) allows 0");
        await door.declare(f.stack, { web: { ...web, osId: 1024 } });
        expect(failed(await f.stack.preview()).output).toContain("web1.example.com would be server 1 that this deployment orders");
        expect(failed(await f.stack.up()).output).toContain("web1.example.com would be server 1 that this deployment orders");
        ok(await f.stack.run(["config", "rm", "edis:maxNewServers"]));
        expect(paidWrites(f.sim)).toEqual(["add/order"]);
        // The list price as ordered is in state; an upgrade's preview says what it adds per month.
        expect((await f.stack.resources()).web.outputs?.listPrice).toEqual({ amount: 4.5, billingCycle: "monthly", currency: "EUR", monthly: 4.5 });
        await door.declare(f.stack, { web: { ...web, planId: 102 } });
        expect(ok(await f.stack.preview()).output).toContain(
            "web1.example.com: changes to KVM M, billed monthly: 8.00 EUR/month at list price before tax (+3.50 EUR/month); this deployment adds 3.50 EUR/month so far",
        );
        await door.declare(f.stack, { web, other: { ...web, planId: 999, hostname: "other.example.com" } });
        const unsure = failed(await f.stack.preview());
        expect(unsure.output).toContain("planId 999 is not a product at any location whose catalogue could be read");
        expect(unsure.output).toContain("Zurich, Switzerland (locationId 4)");
        expect(unsure.output).not.toContain("not sold");
        expect(paidWrites(f.sim)).toEqual(["add/order"]);
    });
});
