/** The schema the plugin serves: `schema.json` at the package root. */
import * as fs from "node:fs";
import * as path from "node:path";

let text: string | undefined;

export function schemaText(): string {
    // dist/provider/plugin -> the package root; provider/plugin (ts-jest) -> the same root.
    const roots = [path.join(__dirname, "..", "..", ".."), path.join(__dirname, "..", "..")];
    text ??= fs.readFileSync(roots.map((r) => path.join(r, "schema.json")).find((f) => fs.existsSync(f)) ?? path.join(roots[0], "schema.json"), "utf8");
    return text;
}
