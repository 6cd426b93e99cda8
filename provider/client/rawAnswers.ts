/** EDIS's raw failure answers may echo the password: only EDIS_RAW_ANSWERS_FILE (mode 0600) gets them. */
import { closeSync, fchmodSync, openSync, writeSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";

export const RAW_ANSWERS_VARIABLE = "EDIS_RAW_ANSWERS_FILE";

/** The file, when the variable names an absolute path outside the program's directory (where a commit could take it). */
export function rawAnswersFile(env: NodeJS.ProcessEnv = process.env, programDir = process.cwd()): string | undefined {
    const file = env[RAW_ANSWERS_VARIABLE];
    if (!file || !isAbsolute(file)) return undefined;
    const fromProgram = relative(programDir, resolve(file));
    const outside = fromProgram === ".." || fromProgram.startsWith(`..${sep}`) || isAbsolute(fromProgram);
    return outside ? resolve(file) : undefined;
}

/** Appends one answer; a debugging aid never fails the operation it describes. */
export function keepRawAnswer(endpoint: string, status: number | undefined, answer: string): void {
    const file = rawAnswersFile();
    if (!file) return;
    try {
        // Owner-only before anything is written, also when the file was there already with a wider mode.
        const fd = openSync(file, "a", 0o600);
        try {
            fchmodSync(fd, 0o600);
            writeSync(fd, `${JSON.stringify({ at: new Date().toISOString(), endpoint, status, answer })}\n`);
        } finally {
            closeSync(fd);
        }
    } catch {}
}
