// A new user's first-hour problems, kept fixed (whole flow: cli/install.cli.test.ts; types: declarations.test.ts).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import * as edis from "pulumi-edis";
import * as edisTesting from "pulumi-edis/testing";
import { PACKAGE_ROOT, createProject } from "./support/workspace";

/** The value of an Output, or its failure. */
function settle<T>(output: pulumi.Output<T>): Promise<T> {
    return (output as unknown as { promise(): Promise<T> }).promise();
}

describe("lookups in a unit test", () => {
    beforeEach(() => pulumi.runtime.setMocks(edisTesting.mocks(), "project", "stack", false));

    test("a lookup that fails keeps its own words, whatever input awaited it, as a RunError (printed as one line)", async () => {
        const account = await edisTesting.startTestAccount();
        // Another e-mail than any lookup so far used: a client of its own, with a password EDIS refuses.
        pulumi.runtime.setConfig("edis:email", "someone-else@example.com");
        try {
            // The Promise form (the Output form runs it), so that no Output is left with a rejection nobody handles.
            const plan = edis.getPlan({ locationId: 1, minRamMb: 2048 });
            // The SDK's own serializer, as a resource registration runs it on every input.
            for (const input of ["planId", "my_plan"]) {
                const failure = await pulumi.runtime.serializeProperties("KvmServer web", { [input]: plan.then((p) => p.id) }).catch((e: Error) => e);
                expect(failure).toBeInstanceOf(Error);
                expect(failure!.message).toMatch(/^EDIS get\/\w+: the e-mail or password was refused/);
                expect(failure!.message).toContain("`edis:email` and `edis:password`");
                expect(failure!.message).not.toContain("error serializing property");
                expect(failure!.message).not.toContain(input);
                expect(pulumi.RunError.isInstance(failure)).toBe(true);
            }
            // A lookup's own refusal too.
            pulumi.runtime.setConfig("edis:email", account.config["edis:email"]);
            const none = edis.getPlan({ locationId: 999, minRamMb: 2048 });
            const refused = await pulumi.runtime.serializeProperties("KvmServer web", { planId: none.then((p) => p.id) }).catch((e: Error) => e);
            expect(refused?.message).toMatch(/^edis\.getPlan: /);
            expect(refused?.message).not.toContain("planId");
        } finally {
            await account.stop();
        }
    });

    test("account.stop() waits for the lookups the program started, including those that others' answers start", async () => {
        const account = await edisTesting.startTestAccount();
        const location = edis.getLocationOutput({ name: "Frankfurt" });
        const plan = edis.getPlanOutput({ locationId: location.id, minRamMb: 2048 });
        const os = edis.getOperatingSystemOutput({ locationId: location.id, planId: plan.id, nameRegex: "^Debian" });
        // Stopped at once, as an afterAll stops it after a test that awaited nothing.
        await account.stop();
        // Each lookup finished against the running simulator: none failed with "connection refused".
        expect(await settle(os.name)).toBe("Debian 12 (64bit)");
        expect(await settle(plan.name)).toBe("KVM M");
        expect(account.simulator.log.map((e) => e.endpoint)).toEqual(expect.arrayContaining(["get/locations", "get/products"]));
    });
});

describe("one @pulumi/pulumi", () => {
    const work = mkdtempSync(join(tmpdir(), "edis-one-sdk-"));
    afterAll(() => rmSync(work, { recursive: true, force: true }));
    /** The @pulumi/pulumi of another release than this package's own: a second copy. */
    const otherSdk = join(PACKAGE_ROOT, "node_modules", "pulumi-sdk-3.248");

    /** A project whose node_modules holds `sdk` as @pulumi/pulumi and pulumi-edis linked to this checkout. */
    function linkedProject(name: string, sdk: string): string {
        const dir = join(work, name);
        mkdirSync(join(dir, "node_modules", "@pulumi"), { recursive: true });
        symlinkSync(sdk, join(dir, "node_modules", "@pulumi", "pulumi"), "dir");
        symlinkSync(PACKAGE_ROOT, join(dir, "node_modules", "pulumi-edis"), "dir");
        return dir;
    }

    /** Runs `<dir>/load.js`, which requires `module`, from the working directory `cwd` (default: dir). */
    function load(dir: string, module: string, cwd = dir) {
        writeFileSync(join(dir, "load.js"), `require(${JSON.stringify(module)}); console.log("loaded");\n`);
        return spawnSync(process.execPath, [join(dir, "load.js")], { cwd, encoding: "utf8" });
    }

    test.each(["pulumi-edis", "pulumi-edis/testing"])("a linked %s with another @pulumi/pulumi than the program's stops, naming both and the fix", (module) => {
        const dir = linkedProject(`two-${module.replace("/", "-")}`, otherSdk);
        const run = load(dir, module);
        expect(run.status).not.toBe(0);
        expect(run.stdout).not.toContain("loaded");
        expect(run.stderr).toContain(`pulumi-edis is linked from ${join(PACKAGE_ROOT, "dist", "sdk")}`);
        expect(run.stderr).toContain(`loads @pulumi/pulumi from ${join(PACKAGE_ROOT, "node_modules", "@pulumi", "pulumi")}`);
        expect(run.stderr).toContain(`loads it from ${otherSdk}`);
        expect(run.stderr).toContain("npm install <path>/pulumi-edis-<version>.tgz");
    });

    test("a linked pulumi-edis that shares the program's @pulumi/pulumi, and an installed one, load", () => {
        const one = linkedProject("one", join(PACKAGE_ROOT, "node_modules", "@pulumi", "pulumi"));
        expect(load(one, "pulumi-edis").stdout).toContain("loaded");
        // What counts is where the program's entry resolves modules from, not the working directory.
        const elsewhere = linkedProject("elsewhere", otherSdk);
        expect(load(one, "pulumi-edis", elsewhere).stdout).toContain("loaded");
        // Installed (under node_modules), it shares the program's by npm's resolution: nothing to check.
        const installed = createProject(join(__dirname, "types"), join(work, "installed"), false, otherSdk);
        const run = load(installed.dir, "pulumi-edis");
        expect(run.stderr).toBe("");
        expect(run.stdout).toContain("loaded");
    });
});
