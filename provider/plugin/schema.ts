/** The schema the plugin serves: `schema.json` at the package root. */
import * as fs from "node:fs";
import * as path from "node:path";

let text: string | undefined;

export function schemaText(): string {
    // dist/provider/plugin -> the package root; provider/plugin (ts-jest) -> the same root.
    const files = ["../../..", "../.."].map((up) => path.join(__dirname, up, "schema.json"));
    text ??= fs.readFileSync(files.find((f) => fs.existsSync(f)) ?? files[0], "utf8");
    return text;
}
