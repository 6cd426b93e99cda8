/** This package's version, as its package.json says (the bins' `--version`, the client's User-Agent). */
export function packageVersion(): string {
    try {
        return require("../../package.json").version as string;
    } catch {
        return "unknown";
    }
}
