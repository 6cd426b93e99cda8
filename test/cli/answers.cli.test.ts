// Words only ever make an outcome safer (DESIGN.md section 4), via the real CLI and both doors; the simulator sets what
// EDIS did apart from what it said (`processed`). Cases 1-2 are ownership.cli's; the wordings are answers.test.ts rows.
import { addSecret, holdsSecret } from "../../provider/client/withhold";
import { CliResult } from "./pulumi";
import { DOORS, Door, cliStacksPerTest, expectNoCredentials, failed, journalText, ok, openDoor, paidWrites } from "./support";

const open = cliStacksPerTest();
const web = { planId: 101, osId: 1012, hostname: "web1.example.com" };
const stackFor = (door: Door, options: Parameters<typeof open>[1] = {}) => openDoor(open, door, { web }, options);

/** UTF-16LE read as Latin-1: a NUL after each character, as SQL Server's "Login failed for user" echo comes. */
const utf16 = (text: string) => [...text].map((c) => `${c}\u0000`).join("");

describe.each(DOORS)("through $name", (door) => {
    const email = "o'brien@example.com";
    const password = `It's "quoted" pw+1`;
    test.each([
        ["an SQL error (PHP's addslashes, SQL's doubled quote)", `SQLSTATE[42000]: near 'o\\'brien@example.com' AND pw='It\\'s \\"quoted\\" pw+1' (also 'o''brien@example.com')`],
        ["SQL Server's login error in UTF-16, alone", utf16(`Login failed for user '${email}' with password '${password}'`)],
    ])("3. credentials that %s echoes reach no output, state or journal", async (_echo, message) => {
        const f = await stackFor(door, { sim: { email, password, faults: [{ endpoint: "add/order", status: 500, json: { status: "error", message } }] } });
        const up = failed(await f.stack.up());
        expect(up.output).toContain("[withheld: ");
        addSecret(password);
        addSecret(email, { wholeOnly: true });
        for (const [where, text] of Object.entries({ output: f.stack.log.join("\n"), state: await f.stack.exportText(), backend: f.stack.backendText(), journal: journalText(f.stack) })) {
            expect([where, holdsSecret(text)]).toEqual([where, false]);
        }
        await expectNoCredentials(f);
        expect(journalText(f.stack)).toContain('"state": "unknown"');
    });

    test("4. an order answered with a PHP notice before the JSON and serviceids as PHP's associative array reaches state; the next up orders nothing", async () => {
        const notice = `<br />\n<b>Notice</b>:  Undefined index: pid in <b>/var/www/api/order.php</b> on line <b>77</b><br />\n`;
        const f = await stackFor(door, {
            sim: { faults: [{ endpoint: "add/order", processed: true, text: `${notice}{"status":"success","orderid":{{orderid}},"serviceids":{"0":{{serviceid}}},"invoiceid":{{invoiceid}},"invoicepaid":true}` }] },
        });
        const first = failed(await f.stack.up());
        expect(first.output).toContain("names service 1003");
        expect((await f.stack.resources()).web).toMatchObject({ id: "1003" });
        const resumed = ok(await f.stack.up());
        expect(resumed.output).toContain("not ordering again");
        expect((await f.stack.resources()).web.outputs).toMatchObject({ serviceId: 1003, kvmId: expect.stringMatching(/^kvm_/) });
        expect(paidWrites(f.sim)).toEqual(["add/order"]);
    });

    test("6. a server missing from the listing that EDIS does not confirm gone stays in state, shows as a change, and refresh goes on; 5. then cancelled behind Pulumi's back, get/kvmid answering 404 'service terminated': refresh drops it", async () => {
        // Provisioned at the second poll, however fast the machine: the create says it waits.
        const f = await stackFor(door, { sim: { provisioningDelayMs: 0, provisioningPolls: 1 } });
        const up = ok(await f.stack.up());
        // The provider's lines show under their resource in the engine's record, in order; a warning is a warning.
        const diagnostics = (r: CliResult) => r.events.map((e) => e.diagnosticEvent).filter((d) => d !== undefined);
        const diagnostic = (r: CliResult, text: string) => diagnostics(r).find((d) => d.message.includes(text));
        expect(diagnostic(up, `ordered ${web.hostname}`)).toMatchObject({ urn: door.urn("web"), severity: "info" });
        const said = diagnostics(up).map((d) => d.message);
        expect(said.findIndex((m) => m.includes(`waiting for ${web.hostname}`))).toBeGreaterThan(said.findIndex((m) => m.includes(`ordered ${web.hostname}`)));
        // The listing leaves it out; get/kvmid still names it (a cancellation only scheduled, or a listing that lags).
        f.sim.inject({ endpoint: "get/auth", json: { status: "success", data: [] }, times: 20 });
        const refreshed = ok(await f.stack.refresh());
        f.sim.clearFaults();
        expect(refreshed.output).toContain("is kept in the stack's state and shown as a change");
        expect(diagnostic(refreshed, "is kept in the stack's state and shown as a change")).toMatchObject({ urn: door.urn("web"), severity: "warning" });
        expect((await f.stack.resources()).web.outputs).toMatchObject({ serviceId: 1003, notListed: true });
        failed(await f.stack.preview(["--expect-no-changes"]));
        // Listed again: the update that the plan shows clears the mark, and nothing is ordered or cancelled.
        ok(await f.stack.up());
        expect((await f.stack.resources()).web.outputs!.notListed).toBeUndefined();
        ok(await f.stack.preview(["--expect-no-changes"]));

        f.sim.account.cancelService(f.sim.account.state.services[0], "Immediate");
        f.sim.inject({ endpoint: "get/kvmid", status: 404, json: { status: "error", msg: "service terminated" }, times: 20 });
        const gone = ok(await f.stack.refresh());
        expect(gone.output).toContain("is gone at EDIS");
        expect(await f.stack.resources()).not.toHaveProperty("web");
        expect(paidWrites(f.sim)).toEqual(["add/order"]);
    });
});
