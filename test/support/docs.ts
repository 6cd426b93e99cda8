// The docs a user reads: tests take their code blocks from here, so every block a user may copy is compiled or run.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(__dirname, "..", "..");

function markdownUnder(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? markdownUnder(join(dir, e.name)) : e.name.endsWith(".md") ? [join(dir, e.name)] : []));
}

/** Every documentation file, by path relative to the repository. */
export const DOC_FILES: string[] = [join(ROOT, "README.md"), join(ROOT, "CONTRIBUTING.md"), ...markdownUnder(join(ROOT, "docs")).filter((f) => !f.includes(`${join("docs", "api")}`))].map((f) => relative(ROOT, f));

export function docText(file: string): string {
    return readFileSync(join(ROOT, file), "utf8");
}

/** The code blocks of one language in every documentation file. */
export function docBlocks(lang: string): Array<{ file: string; code: string }> {
    return DOC_FILES.flatMap((file) => [...docText(file).matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, "gm"))].map((m) => ({ file, code: m[1] })));
}

/** The one code block of `lang` that contains `marker`, in whichever documentation file holds it. */
export function docBlock(lang: string, marker: string): string {
    const found = docBlocks(lang).filter((b) => b.code.includes(marker));
    if (found.length === 0) throw new Error(`no ${lang} block of the documentation contains ${marker}`);
    return found[0].code;
}
