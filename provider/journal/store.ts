/**
 * Where the order journal's entries are kept: one interface, two stores, chosen by `edis:journalUrl`
 * (location.ts). The journal (index.ts) decides what an entry says and when it changes; a store only keeps named
 * objects and gives the two atomic steps that make a paid write happen at most once across machines:
 *
 *   create   if absent          a "sending" entry: of two deployments, one claims the write, the other stops
 *   replace  if still version V  every later transition: a deployment never overwrites what another one wrote
 *
 * A version is what the store says an object is now (S3's ETag; a digest of the file's bytes on disk).
 */
import { createHash } from "node:crypto";
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

export interface StoredObject {
    body: string;
    version: string;
}

export interface JournalStore {
    /** The store as the user names it (a directory, an s3:// URL); never holds a credential. */
    readonly location: string;
    /** The option of `npx pulumi-edis orders` that names this store, quoted for a shell. */
    readonly cliOption: string;
    /**
     * Whether entries are named as every earlier version named them, and listed whole (a directory: an older version
     * must still find what this one wrote); else named by resource, for listings by prefix (S3).
     */
    readonly flat: boolean;
    get(name: string): Promise<StoredObject | undefined>;
    /** Writes the object only if none of that name exists; JournalConflictError when one does. Returns its version. */
    create(name: string, body: string): Promise<string>;
    /** Replaces the object only if it is still at `version`; JournalConflictError when it is not (or is gone). */
    replace(name: string, body: string, version: string): Promise<string>;
    /** Removes the object, if there is one (only at `version`, where given and the store can say: S3 may not). */
    remove(name: string, version?: string): Promise<void>;
    /** The names that start with `prefix`. */
    list(prefix: string): Promise<string[]>;
}

/** A conditional write that found the object otherwise than expected: another deployment wrote it. */
export class JournalConflictError extends Error {
    constructor(
        readonly store: string,
        readonly objectName: string,
        message: string,
    ) {
        super(message);
        this.name = "JournalConflictError";
    }
}

/** The store could not be read or written: before a paid write this stops it; after, it is logged. */
export class JournalStoreError extends Error {
    constructor(message: string) {
        super(message);
        this.name = "JournalStoreError";
    }
}

/** A word quoted for POSIX shells (see journal/index.ts shellQuote, which is this). */
export function shellQuote(word: string): string {
    return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The journal in a directory (the default: `.pulumi-edis/journal` in the program's directory). Each object is a
 * file written whole (write, fsync, rename); create is a hard link, which fails when the name exists on every file
 * system. replace compares the file's digest before renaming over it: atomic against another process only
 * within the moment between the two, which is as much as one machine's disk needs (the backend's lock keeps two
 * deployments of one stack apart; the shared stores are for many machines).
 */
export class FileJournalStore implements JournalStore {
    readonly flat = true;
    constructor(readonly dir: string) {}

    get location(): string {
        return this.dir;
    }

    get cliOption(): string {
        return `--dir ${shellQuote(this.dir)}`;
    }

    async get(name: string): Promise<StoredObject | undefined> {
        const path = join(this.dir, name);
        let body: string;
        try {
            body = readFileSync(path, "utf8");
        } catch (e) {
            if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
            throw new JournalStoreError(`the order journal entry ${path} cannot be read (${(e as Error).message})`);
        }
        return { body, version: digest(body) };
    }

    async create(name: string, body: string): Promise<string> {
        const target = join(this.dir, name);
        const tmp = `${target}.${process.pid}.${Date.now()}.claim`;
        this.writeFile(tmp, body);
        try {
            linkSync(tmp, target);
        } catch (e) {
            if ((e as NodeJS.ErrnoException).code === "EEXIST") {
                throw new JournalConflictError(this.dir, name, `${target} exists already`);
            }
            throw e;
        } finally {
            rmSync(tmp, { force: true });
        }
        this.syncDir();
        return digest(body);
    }

    async replace(name: string, body: string, version: string): Promise<string> {
        const now = await this.get(name);
        if (now?.version !== version) {
            throw new JournalConflictError(this.dir, name, `${join(this.dir, name)} ${now ? "was changed" : "was removed"} by another process`);
        }
        const target = join(this.dir, name);
        const tmp = `${target}.${process.pid}.${Date.now()}.tmp`;
        this.writeFile(tmp, body);
        renameSync(tmp, target);
        this.syncDir();
        return digest(body);
    }

    async remove(name: string): Promise<void> {
        rmSync(join(this.dir, name), { force: true });
    }

    async list(prefix: string): Promise<string[]> {
        try {
            return readdirSync(this.dir).filter((n) => n.startsWith(prefix) && n.endsWith(".json"));
        } catch (e) {
            if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
            throw new JournalStoreError(`the order journal ${this.dir} cannot be listed (${(e as Error).message})`);
        }
    }

    private writeFile(path: string, body: string): void {
        mkdirSync(this.dir, { recursive: true, mode: 0o700 });
        const fd = openSync(path, "w", 0o600);
        try {
            writeSync(fd, body);
            fsyncSync(fd);
        } finally {
            closeSync(fd);
        }
    }

    private syncDir(): void {
        const dirFd = openSync(this.dir, "r");
        try {
            fsyncSync(dirFd);
        } finally {
            closeSync(dirFd);
        }
    }
}

function digest(body: string): string {
    return createHash("sha256").update(body).digest("hex").slice(0, 32);
}
