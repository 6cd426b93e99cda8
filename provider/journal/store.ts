/** Journal stores: create-if-absent and replace-if-at-version make a paid write at-most-once across machines. */
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";

export interface StoredObject {
    body: string;
    version: string;
}

export interface JournalStore {
    /** The store as the user names it (a directory, an s3:// URL); never holds a credential. */
    readonly location: string;
    readonly cliOption: string;
    get(name: string): Promise<StoredObject | undefined>;
    /** Writes the object only if none of that name exists; JournalConflictError when one does. Returns its version. */
    create(name: string, body: string): Promise<string>;
    /** Replaces the object only if it is still at `version`; JournalConflictError when it is not (or is gone). */
    replace(name: string, body: string, version: string): Promise<string>;
    list(prefix: string): Promise<string[]>;
}

/** A conditional write that found the object otherwise than expected: another deployment wrote it. */
export class JournalConflictError extends Error {
    override name = "JournalConflictError";
}

/** The store could not be read or written: before a paid write this stops it; after, it is logged. */
export class JournalStoreError extends Error {
    override name = "JournalStoreError";
}

export function shellQuote(word: string): string {
    return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The journal in a directory: an entry is files `<name>.1`, `<name>.2`, … never removed (no gaps); the highest counts.
 * A write hard-links a finished file to the next number: exclusive, with no lock to outlive its writer and no clock.
 */
export class FileJournalStore implements JournalStore {
    constructor(readonly location: string) {}

    get cliOption(): string {
        return `--dir ${shellQuote(this.location)}`;
    }

    async get(name: string): Promise<StoredObject | undefined> {
        const version = this.highest(name);
        if (version === undefined) return undefined;
        try {
            return { body: readFileSync(this.path(name, version), "utf8"), version: String(version) };
        } catch (e) {
            throw this.failed("read", this.path(name, version), e);
        }
    }

    async create(name: string, body: string): Promise<string> {
        if (this.highest(name) !== undefined) throw new JournalConflictError(`${join(this.location, name)} exists already`);
        return this.write(name, 1, body);
    }

    async replace(name: string, body: string, version: string): Promise<string> {
        const seen = Number(version);
        if (!Number.isInteger(seen) || seen < 1) throw new JournalConflictError(`${join(this.location, name)} is not at version ${version}`);
        return this.write(name, seen + 1, body);
    }

    async list(prefix: string): Promise<string[]> {
        let files: string[];
        try {
            files = readdirSync(this.location);
        } catch (e) {
            if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
            throw this.failed("listed", this.location, e);
        }
        return [...new Set(files.flatMap((f) => (f.startsWith(prefix) ? (VERSIONED.exec(f)?.slice(1, 2) ?? []) : [])))];
    }

    private async write(name: string, version: number, body: string): Promise<string> {
        const target = this.path(name, version);
        const tmp = `${target}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
        try {
            mkdirSync(this.location, { recursive: true, mode: 0o700 });
            const fd = openSync(tmp, "w", 0o600);
            try {
                writeSync(fd, body);
                fsyncSync(fd);
            } finally {
                closeSync(fd);
            }
            linkSync(tmp, target);
            const dirFd = openSync(this.location, "r");
            try {
                fsyncSync(dirFd);
            } finally {
                closeSync(dirFd);
            }
        } catch (e) {
            if ((e as NodeJS.ErrnoException).code === "EEXIST") throw new JournalConflictError(`${join(this.location, name)} was changed by another process`);
            throw this.failed("written", target, e);
        } finally {
            rmSync(tmp, { force: true });
        }
        return String(version);
    }

    private highest(name: string): number | undefined {
        let n = 0;
        while (this.present(this.path(name, n + 1))) n++;
        return n > 0 ? n : undefined;
    }

    /** Whether the file is there; a failure other than its absence is an error, never "no entry". */
    private present(path: string): boolean {
        try {
            statSync(path);
            return true;
        } catch (e) {
            if ((e as NodeJS.ErrnoException).code === "ENOENT") return false;
            throw this.failed("read", path, e);
        }
    }

    private path(name: string, version: number): string {
        return join(this.location, `${name}.${version}`);
    }

    private failed(what: string, path: string, e: unknown): JournalStoreError {
        return new JournalStoreError(`the order journal ${path} cannot be ${what} (${(e as Error).message})`);
    }
}

const VERSIONED = /^(.+\.json)\.(\d+)$/;
