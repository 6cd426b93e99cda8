// A Python program through the plugin and its generated SDK (.ci/build-sdks.sh), in a virtualenv of its own as `pulumi
// new python` makes; pulumi comes from install-pulumi.sh's environment (a .pth file), the SDK pip-installed offline.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../support/workspace";
import { CliStack, pulumiBinDir } from "./pulumi";
import { cliStacksPerTest, expectNoCredentials, installPlugin, ok, paidWrites } from "./support";

const PYTHON = join(PACKAGE_ROOT, "examples", "python");
const open = cliStacksPerTest();

/** The Python SDK's wheel, as .ci/build-sdks.sh leaves it (`npm run test:cli` runs it before the tests, never inside one's time limit). */
function pythonWheel(): string {
    const dist = join(PACKAGE_ROOT, "sdks", "python", "dist");
    const stamp = join(PACKAGE_ROOT, "sdks", ".built-from");
    // build-sdks.sh's own freshness rule: its stamp starts with the digest of the schema.json it built from.
    const schemaDigest = createHash("sha256").update(readFileSync(join(PACKAGE_ROOT, "schema.json"))).digest("hex");
    if (!existsSync(stamp) || !readFileSync(stamp, "utf8").startsWith(`${schemaDigest} `) || !existsSync(dist)) {
        throw new Error("sdks/ is missing or built from another schema.json: run `npm run sdks` (`npm run test:cli` does) before this test");
    }
    const wheel = readdirSync(dist).find((f) => f.endsWith(".whl"));
    if (!wheel) throw new Error(`no wheel in ${dist}: run \`npm run sdks\``);
    return join(dist, wheel);
}

/** The program's virtualenv (Pulumi.yaml: `virtualenv: venv`), with pulumi from install-pulumi.sh's environment and the SDK. */
function virtualenv(stack: CliStack): void {
    const shared = join(pulumiBinDir(), "..", "python-env");
    const venv = join(stack.project.dir, "venv");
    execFileSync(join(shared, "bin", "python"), ["-m", "venv", venv]);
    const lib = readdirSync(join(venv, "lib")).find((d) => d.startsWith("python3"))!;
    const sharedLib = readdirSync(join(shared, "lib")).find((d) => d.startsWith("python3"))!;
    writeFileSync(join(venv, "lib", lib, "site-packages", "pulumi-edis-shared.pth"), `${join(shared, "lib", sharedLib, "site-packages")}\n`);
    execFileSync(join(venv, "bin", "pip"), ["install", "--quiet", "--no-index", "--no-build-isolation", "--no-deps", "--disable-pip-version-check", pythonWheel()], { stdio: ["ignore", "ignore", "inherit"] });
}

test("a Python program orders, refreshes and cancels a server through the plugin and its generated SDK", async () => {
    // The program's own config reaches it (the host passes `<project>:<key>` as the Python SDK reads it); settings the
    // schema types as integer and boolean are accepted in the string form `pulumi config set` writes.
    const f = await open(PYTHON, { config: { hostname: "py-1.example.com", "edis:provisioningTimeoutSeconds": "900", "edis:batchOrders": "false" } });
    const { sim, stack } = f;
    // The plugin installed from its release archive (no PATH, no ambient plugins), the SDK from its wheel.
    await installPlugin(stack);
    virtualenv(stack);

    const up = ok(await stack.up());
    expect(up.output).not.toContain("from $PATH");
    expect(up.ops.web).toEqual(["create"]);
    expect(up.output).toContain("ordered py-1.example.com");
    expect(paidWrites(sim)).toEqual(["add/order"]);
    const server = (await stack.resources()).web;
    expect(server.type).toBe("edis:index:KvmServer");
    expect(server.outputs).toMatchObject({ serviceId: 1003, kvmId: expect.stringMatching(/^kvm_/), hostname: "py-1.example.com", billingCycle: "monthly" });
    expect(await stack.outputs()).toMatchObject({ serviceId: 1003, planName: "KVM M" });

    ok(await stack.preview(["--expect-no-changes"]));
    const refreshed = ok(await stack.refresh());
    expect(refreshed.ops.web).toEqual(["refresh"]);
    ok(await stack.preview(["--expect-no-changes"]));

    ok(await stack.destroy());
    expect(paidWrites(sim)).toEqual(["add/order", "cancel/product"]);
    await expectNoCredentials(f);
});
