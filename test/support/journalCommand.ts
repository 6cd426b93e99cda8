// What a user does with an order journal error: paste the `node '<cli.js>' orders ...` command it names into a shell.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";

// Runs it as pasted (bash parses it); async, so a simulator in this process (chaos's other run) keeps answering.
export function runNamedCommand(text: string, verb: "forget" | "confirm" | "move", cwd?: string, env?: NodeJS.ProcessEnv): Promise<string> {
    const named = new RegExp(`\`(node '[^']+' orders ${verb} [^\`]+)\``).exec(text)?.[1];
    if (!named) return Promise.reject(new Error(`no ${verb} command in: ${text}`));
    // A core test runs the TypeScript sources, whose cli.js is the build's.
    const command = named.replace(/'([^']*)\/provider\/cli\.js'/, (whole, root: string) => (existsSync(`${root}/provider/cli.ts`) ? `'${root}/dist/provider/cli.js'` : whole));
    return new Promise((resolve, reject) =>
        // The user's shell: under jest, process.env is the test's copy, which a child does not get unless given.
        execFile("bash", ["-c", command], { cwd, encoding: "utf8", env: { ...process.env, ...env } }, (e, stdout, stderr) =>
            e ? reject(new Error(`${command} failed (${e.code}): ${stdout}${stderr}`)) : resolve(stdout),
        ),
    );
}
