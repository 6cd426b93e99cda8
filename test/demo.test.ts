// `npm run demo` without a Pulumi CLI says how to install one and stops (the demo itself: cli/examples.cli.test.ts).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";

test("npm run demo without pulumi on the PATH says how to install it and exits 1", () => {
    const path = (process.env.PATH ?? "").split(delimiter).filter((dir) => !existsSync(join(dir, "pulumi"))).join(delimiter);
    const demo = spawnSync(process.execPath, [join(__dirname, "..", "dist", "examples", "demo.js")], { env: { ...process.env, PATH: path }, encoding: "utf8" });
    expect(demo.status).toBe(1);
    expect(demo.stdout).toBe("");
    expect(demo.stderr).toContain("no Pulumi CLI on the PATH: install it (`curl -fsSL https://get.pulumi.com | sh`");
    expect(demo.stderr).toContain("`npm run pulumi:install`");
});
