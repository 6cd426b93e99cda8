/**
 * What a user does with an error of the order journal: run the `npx pulumi-edis orders ...` command it names,
 * word for word (here with this package's compiled CLI, which is what npx runs).
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { PACKAGE_ROOT } from "./workspace";

/**
 * Runs the `npx pulumi-edis orders <verb> ...` command an error printed, as a user pastes it: bash parses it, and
 * `npx pulumi-edis` is this package's compiled CLI (what npx runs).
 */
export function runNamedCommand(text: string, verb: "forget" | "confirm" | "move", cwd?: string, env?: NodeJS.ProcessEnv): string {
    const command = new RegExp(`\`npx pulumi-edis (orders ${verb} [^\`]+)\``).exec(text)?.[1];
    if (!command) throw new Error(`no ${verb} command in: ${text}`);
    try {
        return execFileSync("bash", ["-c", `"$0" "$1" ${command}`, process.execPath, join(PACKAGE_ROOT, "dist", "provider", "cli.js")], {
            cwd,
            encoding: "utf8",
            // The user's shell: under jest, process.env is the test's copy, which a child does not get unless given.
            env: { ...process.env, ...env },
        });
    } catch (e) {
        const failed = e as { status?: number; stdout?: string; stderr?: string };
        throw new Error(`${command} failed (${failed.status}): ${failed.stdout ?? ""}${failed.stderr ?? ""}`);
    }
}
