/**
 * What a user does with an error of the order journal: run the `npx pulumi-edis orders ...` command it names,
 * word for word (here with this package's compiled CLI, which is what npx runs).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { PACKAGE_ROOT } from "./workspace";

export function runNamedCommand(text: string, verb: "forget" | "confirm"): string {
    const command = new RegExp(`\`npx pulumi-edis (orders ${verb} "[^"]+" --dir "[^"]+")\``).exec(text)?.[1];
    if (!command) throw new Error(`no ${verb} command in: ${text}`);
    const args = command.match(/"[^"]*"|\S+/g)!.map((a) => (a.startsWith('"') ? JSON.parse(a) : a));
    const run = spawnSync(process.execPath, [join(PACKAGE_ROOT, "dist", "provider", "cli.js"), ...args], { encoding: "utf8" });
    if (run.status !== 0) throw new Error(`${command} failed (${run.status}): ${run.stdout}${run.stderr}`);
    return run.stdout;
}
