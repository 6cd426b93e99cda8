/**
 * The README's programs, as written: every TypeScript block is type-checked against the SDK, and the Quick
 * start runs through the engine path against the simulator with the configuration the README sets.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestStack } from "./harness";
import { stackConfigFor, startSimulator } from "./support/sim";

const ROOT = join(__dirname, "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const blocks = [...README.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINrWGRolS8WmRbi62V96xA7WjSOMTE/l86PC+sXZS5SN you@laptop";

test("every TypeScript block of the README type-checks against the SDK", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    // Written into one directory, the Quick start as its index.ts, as the unit-test section has them.
    const dir = join(__dirname, ".readme-blocks");
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    const quickStart = blocks.find((b) => b.includes('new edis.KvmServer("web"'))!;
    writeFileSync(join(dir, "index.ts"), quickStart);
    blocks.forEach((code, i) => writeFileSync(join(dir, `block-${i}.ts`), `${code}\nexport {};\n`));
    const tsconfig = join(dir, "tsconfig.json");
    writeFileSync(tsconfig, JSON.stringify({ extends: "../../tsconfig.test.json", include: ["*.ts"] }));
    try {
        execFileSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", tsconfig], { encoding: "utf8" });
    } catch (e) {
        throw new Error(`a README block does not compile:\n${(e as { stdout?: string }).stdout}`);
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
});

test("the Quick start, as written, orders one server through the engine path and destroy cancels it", async () => {
    const quickStart = blocks.find((b) => b.includes('new edis.KvmServer("web"'))!;
    const dir = mkdtempSync(join(tmpdir(), "edis-quickstart-"));
    writeFileSync(join(dir, "Pulumi.yaml"), "name: quickstart\nruntime: nodejs\n");
    writeFileSync(join(dir, "index.ts"), quickStart);
    const sim = await startSimulator();
    // The README's Configuration section (e-mail, password as a secret, payment method), and the key.
    const stack = TestStack.create({
        programDir: dir,
        config: { ...stackConfigFor(sim), "edis:paymentMethod": "paypal", "quickstart:sshPublicKey": KEY },
        secretKeys: ["edis:email", "edis:password"],
    });
    try {
        const up = await stack.up();
        expect(up.errors).toEqual([]);
        expect(up.outputs).toEqual({ kvmId: expect.stringMatching(/^kvm_/), apiHost: expect.stringMatching(/^kvm\d+\.api\.edis-sim\.invalid$/), planName: "KVM M", osName: "Debian 12 (64bit)" });
        expect(sim.account.state.services).toEqual([expect.objectContaining({ pid: 102, os: 1012, hostname: "web-1.example.com", sshPublicKey: KEY })]);
        expect((await stack.destroy()).errors).toEqual([]);
        expect(sim.summary().cancellations).toBe(1);
    } finally {
        stack.dispose();
        await sim.stop();
        rmSync(dir, { recursive: true, force: true });
    }
});
