/**
 * A Pulumi Python program, through the provider plugin and its Python SDK (`pulumi package gen-sdk` output,
 * built by .ci/build-sdks.sh), with the real CLI: it orders, refreshes and cancels a server against the simulator.
 * The program runs in a virtualenv of its own, as `pulumi new python` makes one; the pulumi package comes from
 * PyPI (installed by .ci/install-pulumi.sh, reached through a .pth file) and the SDK is pip-installed offline.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../harness/workspace";
import { CliStack, pulumiBinDir } from "./pulumi";
import { cliStacksPerTest, expectNoCredentials, ok, opsOf, paidWrites } from "./support";

const PYTHON = join(PACKAGE_ROOT, "examples", "python");
const open = cliStacksPerTest();

/** sdks/ as .ci/build-sdks.sh leaves it, built now when it is missing or older than schema.json. */
function pythonSdk(): string {
    const sdk = join(PACKAGE_ROOT, "sdks", "python");
    const setup = join(sdk, "setup.py");
    if (!existsSync(setup) || statSync(setup).mtimeMs < statSync(join(PACKAGE_ROOT, "schema.json")).mtimeMs) {
        execFileSync("bash", [join(PACKAGE_ROOT, ".ci", "build-sdks.sh")], { env: { ...process.env, PULUMI_EDIS_CLI_BIN: pulumiBinDir() }, stdio: ["ignore", "ignore", "inherit"] });
    }
    return sdk;
}

/** The program's virtualenv (Pulumi.yaml: `virtualenv: venv`), with pulumi from install-pulumi.sh's environment and the SDK. */
function virtualenv(stack: CliStack): void {
    const shared = join(pulumiBinDir(), "..", "python-env");
    const venv = join(stack.project.dir, "venv");
    execFileSync(join(shared, "bin", "python"), ["-m", "venv", venv]);
    const lib = readdirSync(join(venv, "lib")).find((d) => d.startsWith("python3"))!;
    const sharedLib = readdirSync(join(shared, "lib")).find((d) => d.startsWith("python3"))!;
    writeFileSync(join(venv, "lib", lib, "site-packages", "pulumi-edis-shared.pth"), `${join(shared, "lib", sharedLib, "site-packages")}\n`);
    execFileSync(join(venv, "bin", "pip"), ["install", "--quiet", "--no-index", "--no-build-isolation", "--no-deps", "--disable-pip-version-check", pythonSdk()], { stdio: ["ignore", "ignore", "inherit"] });
}

test("a Python program orders, refreshes and cancels a server through the plugin and its generated SDK", async () => {
    const f = await open(PYTHON);
    const { sim, stack } = f;
    stack.env.PATH = `${join(stack.project.dir, "node_modules", ".bin")}:${pulumiBinDir()}:${process.env.PATH}`;
    virtualenv(stack);

    const up = ok(await stack.up());
    expect(opsOf(up).web).toEqual(["create"]);
    expect(up.output).toContain("ordered web-1.example.com");
    expect(paidWrites(sim)).toEqual(["add/order"]);
    const server = (await stack.resources()).web;
    expect(server.type).toBe("edis:index:KvmServer");
    expect(server.outputs).toMatchObject({ serviceId: 1003, kvmId: expect.stringMatching(/^kvm_/), hostname: "web-1.example.com" });
    expect(await stack.outputs()).toMatchObject({ serviceId: 1003, planName: "KVM M" });

    ok(await stack.preview(["--expect-no-changes"]));
    const refreshed = ok(await stack.refresh());
    expect(opsOf(refreshed).web).toEqual(["refresh"]);
    ok(await stack.preview(["--expect-no-changes"]));

    ok(await stack.destroy());
    expect(paidWrites(sim)).toEqual(["add/order", "cancel/product"]);
    await expectNoCredentials(f);
});
