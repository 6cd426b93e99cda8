/**
 * What a user does with an error of the order journal: paste the `node '<installed cli.js>' orders ...` command it
 * names, word for word, into a shell.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

/** Runs the orders command an error printed as a user pastes it: bash parses it, and runs the code it names. */
export function runNamedCommand(text: string, verb: "forget" | "confirm" | "move", cwd?: string, env?: NodeJS.ProcessEnv): string {
    const named = new RegExp(`\`(node '[^']+' orders ${verb} [^\`]+)\``).exec(text)?.[1];
    if (!named) throw new Error(`no ${verb} command in: ${text}`);
    // A core test runs the TypeScript sources, whose cli.js is the build's.
    const command = named.replace(/'([^']*)\/provider\/cli\.js'/, (whole, root: string) => (existsSync(`${root}/provider/cli.js`) ? whole : `'${root}/dist/provider/cli.js'`));
    try {
        // The user's shell: under jest, process.env is the test's copy, which a child does not get unless given.
        return execFileSync("bash", ["-c", command], { cwd, encoding: "utf8", env: { ...process.env, ...env } });
    } catch (e) {
        const failed = e as { status?: number; stdout?: string; stderr?: string };
        throw new Error(`${command} failed (${failed.status}): ${failed.stdout ?? ""}${failed.stderr ?? ""}`);
    }
}
