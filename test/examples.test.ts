/**
 * `npm run demo` as a user runs it without a Pulumi CLI. The examples themselves run through the real CLI in
 * test/cli/examples.cli.test.ts.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";

test("npm run demo (after its build): says there is no CLI, then up, drift in a plain preview, refresh, destroy, and the simulator's record", () => {
    // Hide any Pulumi CLI this machine may have, so that the harness path is the one tested.
    const path = (process.env.PATH ?? "").split(delimiter).filter((dir) => !existsSync(join(dir, "pulumi"))).join(delimiter);
    // `npm run demo` is the build, then the demo. `npm test` has just built dist/, and a second build here would
    // rewrite (truncate, then write) the files that the other test files' provider hosts load at that moment
    // through their hard links (a host then loads an empty module): so the test runs the demo's own command.
    const root = join(__dirname, "..");
    const demo = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts.demo as string;
    const [build, command] = demo.split(" && ");
    expect(build).toBe("npm run build --silent");
    expect(command).toBe("node dist/examples/demo.js");
    const run = spawnSync(process.execPath, command.split(" ").slice(1), {
        cwd: root,
        env: { ...process.env, PATH: path },
        encoding: "utf8",
        timeout: 900_000,
    });
    expect(run.status).toBe(0);
    const lines = run.stdout.split("\n").filter((l) => l.trim());
    expect(lines[0]).toMatch(/^No Pulumi CLI on the PATH \(install it with .*get\.pulumi\.com.*\): running the same steps through the engine-path harness/);
    const text = lines.join("\n");
    const order = ["== pulumi up (examples/basic)", "+ web  create", "outputs: kvmId=kvm_", "resources: 1 created", "== behind Pulumi's back: EDIS suspends web-1.example.com", "== pulumi preview (Pulumi.yaml: options.refresh: always", "~ web  refresh: update (suspended)", "~ web  update", "~ web  drift: suspended false -> true", "plan: 1 to update; `pulumi preview --expect-no-changes` would fail", "== pulumi refresh", "~ web  refresh: update (suspended)", "resources: 1 updated", "== pulumi destroy", "- web  delete", "resources: 1 deleted"];
    let at = 0;
    for (const piece of order) {
        const found = text.indexOf(piece, at);
        expect({ piece, found: found >= 0 }).toEqual({ piece, found: true });
        at = found;
    }
    expect(lines[lines.length - 1]).toBe(
        "== simulator record: 1 order(s) placed, 1 service(s) cancelled (End of Billing Period), 0 running without a cancellation",
    );
    expect(text).not.toContain("error:");
});
