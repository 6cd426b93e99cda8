/**
 * Where the order journal's entries are kept (`edis:journalUrl`, location.ts). A store keeps named objects and gives the
 * two atomic steps that make a paid write happen at most once across machines: create if absent, and replace (or
 * `removeAt`) only if still at version V (S3's ETag; a digest of the file's bytes on disk).
 */
import { createHash } from "node:crypto";
import { closeSync, fstatSync, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

export interface StoredObject {
    body: string;
    version: string;
}

export interface JournalStore {
    /** The store as the user names it (a directory, an s3:// URL); never holds a credential. */
    readonly location: string;
    /** The option of the orders CLI that names this store, quoted for a shell. */
    readonly cliOption: string;
    get(name: string): Promise<StoredObject | undefined>;
    /** Writes the object only if none of that name exists; JournalConflictError when one does. Returns its version. */
    create(name: string, body: string): Promise<string>;
    /** Replaces the object only if it is still at `version`; JournalConflictError when it is not (or is gone). */
    replace(name: string, body: string, version: string): Promise<string>;
    list(prefix: string): Promise<string[]>;
    /** Removes the object only if still at `version`; absent where a delete cannot be conditional. */
    removeAt?(name: string, version: string): Promise<void>;
}

/** A conditional write that found the object otherwise than expected: another deployment wrote it. */
export class JournalConflictError extends Error {
    override name = "JournalConflictError";
}

/** The store could not be read or written: before a paid write this stops it; after, it is logged. */
export class JournalStoreError extends Error {
    constructor(message: string) {
        super(message);
        this.name = "JournalStoreError";
    }
}

/** A word quoted for POSIX shells. */
export function shellQuote(word: string): string {
    return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A lock is held for one read and one rename: an older one was left by a process killed mid-write. */
const LOCK_STALE_MS = 10_000;

/** The journal in a directory: files written whole (write, fsync, rename); create is a hard link; replace runs under `<name>.lock`. */
export class FileJournalStore implements JournalStore {
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
                throw new JournalConflictError(`${target} exists already`);
            }
            throw e;
        } finally {
            rmSync(tmp, { force: true });
        }
        this.syncDir();
        return digest(body);
    }

    async replace(name: string, body: string, version: string): Promise<string> {
        return this.atVersion(name, version, (target) => {
            const tmp = `${target}.${process.pid}.${Date.now()}.tmp`;
            this.writeFile(tmp, body);
            renameSync(tmp, target);
            this.syncDir();
            return digest(body);
        });
    }

    async removeAt(name: string, version: string): Promise<void> {
        await this.atVersion(name, version, (target) => {
            rmSync(target);
            this.syncDir();
        });
    }

    /** Runs `change` while the entry is at `version`, under its lock, with no await between read and change. */
    private async atVersion<T>(name: string, version: string, change: (target: string) => T): Promise<T> {
        const target = join(this.dir, name);
        const lock = await this.lock(name);
        try {
            let now: string | undefined;
            try {
                now = readFileSync(target, "utf8");
            } catch (e) {
                if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw new JournalStoreError(`the order journal entry ${target} cannot be read (${(e as Error).message})`);
            }
            if (now === undefined || digest(now) !== version) {
                throw new JournalConflictError(`${target} ${now !== undefined ? "was changed" : "was removed"} by another process`);
            }
            // A write stalled past LOCK_STALE_MS (a frozen runner) has lost its lock to a takeover: it changes nothing.
            if (!holds(lock)) throw new JournalConflictError(`${lock.path} was taken over while this process held it`);
            return change(target);
        } finally {
            // Only this process's lock is removed: one taken over meanwhile (held past LOCK_STALE_MS) is another's now.
            if (holds(lock)) rmSync(lock.path, { force: true });
            closeSync(lock.fd);
        }
    }

    /** `<name>.lock`, created exclusively; waited for, not failed on, so a killed deployment's stale lock blocks no write. */
    private async lock(name: string): Promise<{ fd: number; path: string }> {
        mkdirSync(this.dir, { recursive: true, mode: 0o700 });
        const path = join(this.dir, `${name}.lock`);
        const giveUpAt = Date.now() + 2 * LOCK_STALE_MS;
        for (;;) {
            try {
                return { fd: openSync(path, "wx", 0o600), path };
            } catch (e) {
                if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw new JournalStoreError(`the order journal entry ${path} cannot be locked (${(e as Error).message})`);
            }
            let held;
            try {
                held = lstatSync(path);
            } catch (e) {
                if ((e as NodeJS.ErrnoException).code === "ENOENT") continue; // released meanwhile
                throw new JournalStoreError(`the order journal entry ${path} cannot be locked (${(e as Error).message})`);
            }
            // A takeover that did not remove it (another one under way) is waited for like a live lock: no spin.
            if (Date.now() - held.mtimeMs > LOCK_STALE_MS) takeOver(path, held);
            else if (Date.now() > giveUpAt) throw new JournalConflictError(`${path} is held by other processes writing the entry`);
            await new Promise((r) => setTimeout(r, 25));
        }
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

/** Whether the lock file at the path is still the one this process created (not taken over since). */
function holds(lock: { fd: number; path: string }): boolean {
    try {
        return lstatSync(lock.path).ino === fstatSync(lock.fd).ino;
    } catch {
        return false;
    }
}

/** `<lock>.break` is held for one look and one unlink: one this old was left by a killed process. */
const BREAK_STALE_MS = LOCK_STALE_MS;

/** Removes a stale lock under `<lock>.break`, only if still the file seen stale: a second taker never removes the first's new lock. */
export function takeOver(path: string, seen: { ino: number; mtimeMs: number }): void {
    const breaker = `${path}.break`;
    let fd: number;
    try {
        fd = openSync(breaker, "wx", 0o600);
    } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw new JournalStoreError(`the order journal entry ${path} cannot be locked (${(e as Error).message})`);
        try {
            if (Date.now() - lstatSync(breaker).mtimeMs > BREAK_STALE_MS) rmSync(breaker, { force: true });
        } catch {
            // another takeover finished meanwhile
        }
        return;
    }
    try {
        const now = lstatSync(path);
        if (now.ino === seen.ino && now.mtimeMs === seen.mtimeMs && Date.now() - now.mtimeMs > LOCK_STALE_MS) rmSync(path);
    } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw new JournalStoreError(`the order journal entry ${path} cannot be locked (${(e as Error).message})`);
    } finally {
        closeSync(fd);
        rmSync(breaker, { force: true });
    }
}

function digest(body: string): string {
    return createHash("sha256").update(body).digest("hex").slice(0, 32);
}
