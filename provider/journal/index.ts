/**
 * The order journal: a record of every paid or non-repeatable write (add/order, add/upgrade, and hooks/set, which adds a
 * traffic hook each time and cannot be listed) that survives a crash of the provider host or of the whole deployment, kept
 * in a directory or, for runners that do not outlive a job, in S3 (`edis:journalUrl`, location.ts, store.ts). The writes go
 * through one path, paidWrite.ts; this module is the record: one object per resource and kind, each step atomic (OrderJournal).
 *
 *   before the write      entry "sending"     ─ claimed exclusively: a second deployment finds it and stops
 *   the answer is known   entry "ordered"/"done" with the ids, or no entry when EDIS refused it
 *   the answer was lost   entry "unknown"
 *   create returned       entry "created"     ─ the engine had it; kept until its state shows it
 *   the engine has it     entry removed       ─ diff, read, update or delete saw the result in state (conditionally: see clear)
 *
 * **Identity.** An entry belongs to one resource: it is keyed by the resource's URN (project, stack, parent types, type and
 * name; the SDK's input `__resourceKey`), so two resources of one name under two components never share an entry. A resource
 * renamed with an alias finds its entries under the alias's URN (the SDK's `__resourceAliases`) and takes them over. An entry
 * that names the same project, parents and name under another stack (a renamed stack, or another stack in the same directory)
 * is never taken silently: one whose outcome is unknown stops the write, with a command for each case. No entry is ever passed
 * over because of a computed tag (an account, an endpoint's spelling): what may be this resource's blocks until the user says.
 */
import { createHash, randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { join } from "node:path";
import { BillingCycle } from "../client/model";
import { withhold } from "../client/withhold";
import { FileJournalStore, JournalConflictError, JournalStore, JournalStoreError, shellQuote } from "./store";

export { DEFAULT_JOURNAL_DIR, journalStoreAt, parseJournalUrl } from "./location";
export type { JournalLocation } from "./location";
export { FileJournalStore, JournalConflictError, JournalStoreError, shellQuote } from "./store";
export type { JournalStore } from "./store";

/** The input by which the SDK names a resource for the journal (its URN); not an EDIS input, ignored by diff. */
export const RESOURCE_KEY = "__resourceKey";
/** The URNs the resource had before (its aliases), for the journal; not an EDIS input, ignored by diff. */
export const RESOURCE_ALIASES = "__resourceAliases";

export type JournalKind = "order" | "upgrade" | "hook" | "extra" | "adoption";

interface EntryBase {
    key: string;
    hostname: string;
    /** When the write was sent (ISO time). */
    sentAt: string;
    /** What went wrong, for an unknown outcome. */
    problem?: string;
    /** Which deployment wrote the entry last (WRITER): named to another deployment that finds it. */
    writer?: string;
    /** A nonce of the write that made this body (see serialize). */
    write?: string;
}

export interface OrderEntry extends EntryBase {
    kind: "order";
    state: "sending" | "unknown" | "ordered" | "created";
    /** The inputs the order was placed with (a resumed create returns what was really ordered). */
    inputs: Record<string, unknown>;
    serviceId?: number;
    orderId?: number;
    invoiceId?: number;
    invoicePaid?: boolean;
    locationId?: number;
    /** The KVM, once the create returned ("created"). */
    kvmId?: string;
    /** For a replacement: the server being replaced, which the user must not adopt as the new one. */
    replacing?: { serviceId: number; kvmId?: string };
    /** An order placed for several resources at once (`edis:batchOrders`): this one's place in it. */
    batch?: OrderBatchInfo;
}

/** One add/order for several resources: every member's entry carries it, so each finds the others. */
export interface OrderBatchInfo {
    /** Hex id of the batch, shared by its members' entries; `orders forget --batch <id>` resolves them all. */
    id: string;
    /** This member's item in the order (its service id is the answer's id at the same place). */
    index: number;
    /** The members' host names, in item order. */
    hostnames: string[];
}

/** Services order answers named beyond the one the resource holds: billed, and in no state. Never settled; each order adds its own. */
export interface ExtraEntry extends EntryBase {
    kind: "extra";
    state: "unclaimed";
    orderIds: number[];
    serviceIds: number[];
}

export interface UpgradeEntry extends EntryBase {
    kind: "upgrade";
    state: "sending" | "unknown" | "done";
    serviceId: number;
    kvmId: string;
    fromPlanId: number;
    toPlanId: number;
    billingCycle: BillingCycle;
}

/** A traffic hook (hooks/set); `hostname` holds the KVM id. */
export interface HookEntry extends EntryBase {
    kind: "hook";
    state: "sending" | "unknown" | "done";
    kvmId: string;
    callbackUrl: string;
    triggerPercent: number;
    /** The rest of the hook's inputs, as a digest: a journalled hook is reused only for the same inputs. */
    inputsDigest?: string;
    hookId?: number;
}

/**
 * The resource that last adopted a server, by the server (key `service:<id>`, adoptionKey): the token it keeps in its
 * state travels with it through renames, aliases and stack moves, and only the delete that carries it may cancel the
 * server; a delete of any other resource that names the service fails before cancelling (kvm/holders.ts).
 */
export interface AdoptionEntry extends EntryBase {
    kind: "adoption";
    state: "held";
    serviceId: number;
    kvmId: string;
    /** The adopter's URN when it adopted, for the error of another resource's delete. */
    holder: string;
    token: string;
}

export type JournalEntry = OrderEntry | UpgradeEntry | HookEntry | ExtraEntry | AdoptionEntry;

/** The key of a server's adoption record. */
export function adoptionKey(serviceId: number): string {
    return `service:${serviceId}`;
}

/** An entry of the same resource under another stack, that stops a write until the user claims it. */
export class JournalClaimError extends Error {
    constructor(message: string) {
        super(message);
        this.name = "JournalClaimError";
    }
}

/** Which deployment writes an entry: this machine and process (and the CI job, where one is named), for the error
 * of another deployment that finds the entry. */
export const WRITER = [
    `${hostname()} pid ${process.pid}`,
    process.env.GITHUB_RUN_ID ? `GitHub Actions run ${process.env.GITHUB_RUN_ID}` : undefined,
    process.env.CI_JOB_ID ? `GitLab job ${process.env.CI_JOB_ID}` : undefined,
].filter(Boolean).join(", ");

/**
 * The journal's entries in a store (store.ts): what an entry is called, and the steps between its states.
 *
 * An entry's name is `<resource>.<key>.<kind>.json` in every store: `<key>` a digest of the resource's key (its URN;
 * case-insensitive file systems cannot merge two keys), `<resource>` a digest of the URN without its stack, so that
 * one listing by prefix finds a resource's own entries, or its entries under every stack, without reading others.
 *
 * Every transition is atomic in the store: a "sending" entry is created only if absent (claim), and a later write replaces
 * an entry only at the version this journal last saw of it, so a deployment never overwrites what another one wrote meanwhile.
 *
 * Removal is conditional too, else a `pulumi preview` that read an entry before another runner replaced it would delete the
 * newer one. A store that can delete conditionally does so at the version last seen (a directory); one that cannot (S3 honours
 * If-Match on DeleteObject, the pinned MinIO ignores it) overwrites the entry at that version with a tombstone, which every
 * read takes for "no entry". A claim over a tombstone replaces it at its version, so of two deployments one still wins.
 */
export class OrderJournal {
    readonly store: JournalStore;
    /** The version this journal last saw of each object it read or wrote; null when it saw none there. */
    private readonly versions = new Map<string, string | null>();
    /** The objects last seen as tombstones (removed entries), by name: a claim replaces them at this version. */
    private readonly removedAt = new Map<string, string>();
    /** The ids the entry last seen of each object holds, which no write may drop (idsOf). */
    private readonly held = new Map<string, string[]>();

    /** A store, or a directory (the file store). */
    constructor(store: JournalStore | string) {
        this.store = typeof store === "string" ? new FileJournalStore(store) : store;
    }

    /** The store as the user names it: a directory or an s3:// URL. */
    get dir(): string {
        return this.store.location;
    }

    /** The option of the orders CLI (ORDERS_CLI) that names this journal. */
    get cliOption(): string {
        return this.store.cliOption;
    }

    async read<K extends JournalKind>(key: string, kind: K): Promise<Extract<JournalEntry, { kind: K }> | undefined> {
        return (await this.readNamed(this.nameOf(key, kind))) as Extract<JournalEntry, { kind: K }> | undefined;
    }

    /**
     * Writes an entry whole: at the version last seen of it, or over what is there if this journal saw none. A write never
     * drops an id (service, order, hook) that the entry it replaces holds: such a write is refused and the entry stays.
     */
    async write(entry: JournalEntry): Promise<void> {
        const name = this.nameOf(entry.key, entry.kind);
        const body = serialize(entry);
        let seen = this.versions.get(name);
        if (seen === undefined) {
            const now = await this.store.get(name);
            seen = now ? now.version : null;
            this.held.set(name, now && !isTombstone(now.body) ? idsOf(JSON.parse(now.body) as JournalEntry) : []);
        }
        const lost = (this.held.get(name) ?? []).filter((id) => !idsOf(entry).includes(id));
        if (lost.length) {
            throw new JournalStoreError(`the order journal's ${entry.kind} entry of ${entry.key} holds ${lost.join(", ")}, which a write would drop; it was kept as it is`);
        }
        this.seen(name, seen === null ? await this.store.create(name, body) : await this.store.replace(name, body, seen), false);
        this.held.set(name, idsOf(entry));
    }

    /**
     * Writes a "sending" entry only if none exists (a tombstone counts as none): of two deployments that found no entry, on
     * one machine or two sharing the store, one claims the write and the other stops here, naming the first one's entry.
     */
    async claim(entry: JournalEntry): Promise<void> {
        const name = this.nameOf(entry.key, entry.kind);
        const body = serialize(entry);
        try {
            let removed = this.removedAt.get(name);
            if (removed === undefined) {
                try {
                    return this.claimed(name, await this.store.create(name, body), entry);
                } catch (e) {
                    if (!(e instanceof JournalConflictError)) throw e;
                    // Something is there: a tombstone (read now) is no entry, and is claimed at its version; one
                    // removed the moment after is created again, once.
                    if ((await this.readNamed(name)) !== undefined) throw e;
                    removed = this.removedAt.get(name);
                    if (removed === undefined && this.versions.get(name) === null) return this.claimed(name, await this.store.create(name, body), entry);
                    if (removed === undefined) throw e;
                }
            }
            this.claimed(name, await this.store.replace(name, body, removed), entry);
        } catch (e) {
            if (!(e instanceof JournalConflictError)) throw e;
            const other = await this.readNamed(name).catch(() => undefined);
            const whose = other ? `its entry (${other.state}, sent ${other.sentAt}${other.writer ? ` by ${other.writer}` : ""})` : "its entry";
            throw new JournalClaimError(
                `another deployment is sending the same ${entry.kind} for ${entry.key}: ${whose} appeared in the order journal ` +
                    `${this.dir} a moment ago. Nothing was sent. Let that deployment finish, then run \`pulumi up\` again: it resumes ` +
                    `what the other one ${entry.kind === "order" ? "ordered" : "sent"} instead of sending it again.`,
            );
        }
    }

    private claimed(name: string, version: string, entry: JournalEntry): void {
        this.seen(name, version, false);
        this.held.set(name, idsOf(entry));
    }

    /**
     * Removes a resource's entry of one kind, if any, at the version this journal last saw (for an entry it never read, the
     * version there now; see the class comment). An entry another deployment changed meanwhile is kept (JournalConflictError).
     */
    async clear(key: string, kind: JournalKind): Promise<void> {
        const name = this.nameOf(key, kind);
        let seen = this.versions.get(name);
        if (seen === undefined) {
            const now = await this.store.get(name);
            seen = now === undefined ? null : now.version;
            if (now && isTombstone(now.body)) this.removedAt.set(name, now.version);
        }
        if (seen === null || this.removedAt.get(name) === seen) {
            this.versions.set(name, seen);
            return;
        }
        if (this.store.removeAt) {
            await this.store.removeAt(name, seen);
            this.versions.set(name, null);
            this.held.set(name, []);
            this.removedAt.delete(name);
        } else this.seen(name, await this.store.replace(name, tombstone(), seen), true);
    }

    /** Records what this journal last saw of an object: its version, and whether it is a tombstone. */
    private seen(name: string, version: string, removed: boolean): void {
        this.versions.set(name, version);
        if (removed) this.held.set(name, []);
        if (removed) this.removedAt.set(name, version);
        else this.removedAt.delete(name);
    }

    /** Every entry in the store (the CLI's view: an entry that is not JSON is passed over here, and only here). */
    async list(): Promise<JournalEntry[]> {
        return this.readAll(await this.store.list(""), true);
    }

    /** A resource's own entries, of every kind: one listing, and a read of each entry found. */
    async entriesOf(key: string): Promise<JournalEntry[]> {
        return (await this.readAll(await this.store.list(`${resourceDigest(key)}.${keyDigest(key)}.`))).filter((e) => e.key === key);
    }

    /** The entries of the same resource under any stack: one listing. */
    async related(key: string): Promise<JournalEntry[]> {
        return this.readAll(await this.store.list(`${resourceDigest(key)}.`));
    }

    /** Every entry of one kind. */
    async ofKind(kind: JournalKind): Promise<JournalEntry[]> {
        return (await this.readAll((await this.store.list("")).filter((n) => n.endsWith(`.${kind}.json`)))).filter((e) => e.kind === kind);
    }

    /** Moves every entry of one resource to another key (an alias, a renamed stack). Returns what moved. */
    async move(from: string, to: string): Promise<JournalEntry[]> {
        const moved: JournalEntry[] = [];
        for (const kind of ["order", "upgrade", "hook", "extra", "adoption"] as const) {
            const entry = await this.read(from, kind);
            if (!entry) continue;
            if (await this.read(to, kind)) throw new Error(`${to} already has a ${kind} entry in ${this.dir}; nothing was moved`);
            await this.write({ ...entry, key: to });
            await this.clear(from, kind);
            moved.push({ ...entry, key: to });
        }
        return moved;
    }

    private async readNamed(name: string): Promise<JournalEntry | undefined> {
        const found = await this.store.get(name);
        if (!found) {
            this.versions.set(name, null);
            this.removedAt.delete(name);
            return undefined;
        }
        const removed = isTombstone(found.body);
        this.seen(name, found.version, removed);
        this.held.set(name, []);
        if (removed) return undefined;
        try {
            const entry = JSON.parse(found.body) as JournalEntry;
            this.held.set(name, idsOf(entry));
            return entry;
        } catch (e) {
            throw new UnparsableEntryError(`the order journal entry ${name} in ${this.dir} cannot be read (${(e as Error).message}); nothing was sent`);
        }
    }

    /**
     * The entries of these names; one removed meanwhile is passed over. What cannot be read (the store, or an entry that is not
     * JSON, passed over only for the CLI's list, `tolerant`) is an error, never "no entry", which would order or cancel on a guess.
     */
    private async readAll(names: string[], tolerant = false): Promise<JournalEntry[]> {
        const entries = await Promise.all(
            [...new Set(names)].map((n) =>
                this.readNamed(n).catch((e) => {
                    if (tolerant && e instanceof UnparsableEntryError) return undefined;
                    throw e;
                }),
            ),
        );
        return entries.filter((e): e is JournalEntry => e !== undefined);
    }

    private nameOf(key: string, kind: JournalKind): string {
        return `${resourceDigest(key)}.${keyDigest(key)}.${kind}.json`;
    }
}

/** Every service, order and hook id an entry holds. */
function idsOf(entry: JournalEntry): string[] {
    const e = entry as { serviceId?: number; serviceIds?: number[]; orderId?: number; orderIds?: number[]; hookId?: number };
    return [
        ...[e.serviceId, ...(e.serviceIds ?? [])].filter((id) => id !== undefined).map((id) => `service ${id}`),
        ...[e.orderId, ...(e.orderIds ?? [])].filter((id) => id !== undefined).map((id) => `order ${id}`),
        ...(e.hookId !== undefined ? [`hook ${e.hookId}`] : []),
    ];
}

/** An entry whose body is not JSON (written by hand, or cut short on a full disk); the CLI's listing passes it over. */
class UnparsableEntryError extends JournalStoreError {}

function keyDigest(key: string): string {
    return createHash("sha256").update(key).digest("hex").slice(0, 40);
}

/**
 * The resource a key names whatever its stack: project, parent types, type and name of a URN; else the key. A key
 * filed aside (`<urn>#service-<id>`) names its resource too, so one listing finds it.
 */
function resourceDigest(key: string): string {
    const p = urnParts(key.replace(/#service-\d+$/, ""));
    return createHash("sha256").update(p ? `${p.project}::${p.typePath}::${p.name}` : key).digest("hex").slice(0, 16);
}

/** The body of a removed entry: no entry, for every read (see OrderJournal's comment). */
function tombstone(): string {
    // Small on purpose: a listing passes over objects this small without reading them (s3Store.ts, TOMBSTONE_MAX_BYTES).
    return `${JSON.stringify({ removed: true, write: randomBytes(8).toString("hex") })}\n`;
}

function isTombstone(body: string): boolean {
    return /^\s*\{\s*"removed"\s*:\s*true\b/.test(body);
}

/** An entry's body, made its own by the write's nonce: two deployments may write the same entry to the byte (see s3Store.ts). */
function serialize(entry: JournalEntry): string {
    // `problem` is the one field that quotes EDIS: withheld when it holds a credential (a shared bucket is read by many).
    const problem = entry.problem === undefined ? undefined : withhold(entry.problem, { scope: "composed" });
    return `${JSON.stringify({ ...entry, problem, writer: WRITER, write: randomBytes(8).toString("hex") }, null, 2)}\n`;
}

/**
 * The id by which a printed command names a resource's entries: hex, so that the command is safe to paste and
 * to quote in any text whatever the resource's name holds (a name may hold `$(...)`, quotes or backticks, and an
 * error shows commands between backticks). The CLI finds the key (the URN) by it, and prints the key back.
 */
export function entryId(key: string): string {
    return createHash("sha256").update(key).digest("hex").slice(0, 16);
}

/**
 * How a printed command runs the orders CLI: the code this provider was loaded from (the npm package's, or the plugin's
 * own), by its path. Never `npx pulumi-edis`, which fetches whatever the registry has under that name when the package is
 * not installed (a YAML, Python or Go user has only the plugin), and runs it with the account's credentials around.
 */
export const ORDERS_CLI = `node ${shellQuote(join(__dirname, "..", "cli.js"))} orders`;

/** Where a printed command finds the journal: a directory, or a journal (or store) that names itself. */
export type JournalPlace = string | { cliOption: string };

function placeOption(where: JournalPlace): string {
    return typeof where === "string" ? `--dir ${shellQuote(where)}` : where.cliOption;
}

/** The command that resolves one entry (of one kind: forgetting an order never forgets a hook or extra services), as the errors print it. */
export function resolveCommand(verb: "forget" | "confirm", key: string, where: JournalPlace, kind: JournalKind): string {
    return `${ORDERS_CLI} ${verb} ${entryId(key)} --kind ${kind} ${placeOption(where)}`;
}

/** The command that forgets an order entry whose outcome is unknown: for a batched order, every member's at once. */
export function forgetOrderCommand(entry: Pick<OrderEntry, "key" | "batch">, where: JournalPlace): string {
    if (entry.batch) return `${ORDERS_CLI} forget --batch ${entry.batch.id} ${placeOption(where)}`;
    return resolveCommand("forget", entry.key, where, "order");
}

/**
 * The command that hands one resource's entries to another key (a renamed stack). The entries are named by id; the resource
 * they go to, which has no entry yet, by its URN in base64url (`urn64:`), safe to paste whatever its name holds.
 */
export function moveCommand(from: string, to: string, where: JournalPlace): string {
    return `${ORDERS_CLI} move ${entryId(from)} ${URN64}${Buffer.from(to).toString("base64url")} ${placeOption(where)}`;
}

/** How a printed command names a URN in base64url. */
export const URN64 = "urn64:";

/** Who a write is for: the resource's URN, and the URNs it had (aliases), when the door was told them. */
export interface Identity {
    key: string;
    aliases: string[];
    /** Whether the door was told the aliases (the dynamic door's SDK passes them; the engine never tells the plugin). */
    aliasesKnown: boolean;
}

/** The identity of a resource from its inputs or stored outputs; undefined without a key (a `get`, or no SDK). */
export function identityOf(props: Record<string, unknown>): Identity | undefined {
    const key = props[RESOURCE_KEY];
    if (typeof key !== "string") return undefined;
    const known = Array.isArray(props[RESOURCE_ALIASES]);
    const aliases = known ? (props[RESOURCE_ALIASES] as unknown[]).filter((a): a is string => typeof a === "string" && a !== key) : [];
    return { key, aliases, aliasesKnown: known };
}

/** A URN's parts; undefined for a key that is not a URN. */
function urnParts(key: string): { stack: string; project: string; typePath: string; name: string } | undefined {
    const m = /^urn:pulumi:(.*?)::(.*?)::(.*?)::(.*)$/s.exec(key);
    return m ? { stack: m[1], project: m[2], typePath: m[3], name: m[4] } : undefined;
}

/**
 * Whether `other` may be this resource under another stack name (same project, parents, type and name). `orders move` hands
 * entries only so: to a mistyped or cut-off target they would be filed where no resource reads them, and sent again.
 */
export function sameResourceElsewhere(key: string, other: string): boolean {
    const me = urnParts(key);
    const them = urnParts(other);
    if (!me || !them || other === key) return false;
    return them.project === me.project && them.typePath === me.typePath && them.name === me.name && them.stack !== me.stack;
}

/**
 * The unfinished paid writes of `kind` (an order, a hook) of other resources of the same stack, project and type as `key`:
 * where a resource renamed with an alias finds its old writes when its aliases are unknown (the native plugin, told only the new URN).
 */
export async function unfinishedBeside<K extends "order" | "hook">(
    journal: OrderJournal,
    key: string,
    kind: K,
): Promise<Array<Extract<JournalEntry, { kind: K }>>> {
    const me = urnParts(key);
    if (!me) return [];
    const type = (t: string) => t.split("$").pop();
    return (await journal.ofKind(kind)).filter((e): e is Extract<JournalEntry, { kind: K }> => {
        const them = urnParts(e.key);
        return e.kind === kind && e.key !== key && unresolved(e) && !!them && them.stack === me.stack && them.project === me.project && type(them.typePath) === type(me.typePath);
    });
}

/**
 * Whether an entry may record a write that no stack's state holds: its outcome is unknown ("sending", "unknown"), an order
 * answered whose create never returned ("ordered"), or one whose create returned ("created") to an engine that may have died
 * before its checkpoint: the program settles an entry the moment the engine has saved its resource (settleRecorded), and
 * the plugin's next operation that sees it in state does. A finished plan change and an adoption belong to a resource in state.
 */
function unresolved(entry: JournalEntry): boolean {
    return entry.kind !== "adoption" && entry.state !== "done" && entry.state !== "unclaimed";
}

/**
 * The entry of `kind` that belongs to this resource, by its identity (the module comment's rules): its own, else an alias's,
 * taken over; an unresolved one of the same resource under another stack stops the write. Where the door was not told the
 * aliases (the plugin never is), so does one of the same intent (`sameIntent`) left by an earlier deployment under another
 * name of this stack and type: it may be this resource before a rename.
 */
export async function entryFor<K extends JournalKind>(
    journal: OrderJournal,
    id: Identity,
    kind: K,
    log: (line: string) => void,
    sameIntent?: (entry: Extract<JournalEntry, { kind: K }>) => boolean,
): Promise<Extract<JournalEntry, { kind: K }> | undefined> {
    const own = await journal.read(id.key, kind);
    if (own) return own;
    for (const alias of id.aliases) {
        if (!(await journal.read(alias, kind))) continue;
        await journal.move(alias, id.key);
        log(`the order journal's entries of ${alias} now belong to ${id.key} (its alias)`);
        return journal.read(id.key, kind);
    }
    const elsewhere = (await journal.related(id.key)).find((e) => e.kind === kind && unresolved(e) && sameResourceElsewhere(id.key, e.key));
    if (elsewhere) {
        // Nothing is written to the entry found: it may be another deployment's, still sending (see moveCommand).
        const service = "serviceId" in elsewhere && elsewhere.serviceId !== undefined ? ` (service ${elsewhere.serviceId})` : "";
        throw new JournalClaimError(
            `the order journal holds an unfinished ${elsewhere.kind} for ${elsewhere.key}${service}, sent ${elsewhere.sentAt}: the same ` +
                `resource name in another stack, or in this stack before it was renamed. Nothing was sent, so that it cannot be paid twice. ` +
                `If that stack still exists, run \`pulumi preview\` or \`pulumi up\` there first: it clears the entry, or finishes the write. If this stack was ` +
                `renamed from that one, run \`${moveCommand(elsewhere.key, id.key, journal)}\` and then \`pulumi up\`: what was sent is ` +
                `resumed, not sent again.`,
        );
    }
    if (id.aliasesKnown || !sameIntent || (kind !== "order" && kind !== "hook")) return undefined;
    const renamed = (await unfinishedBeside(journal, id.key, kind as "order" | "hook")).find(
        (e) => e.writer !== WRITER && sameIntent(e as Extract<JournalEntry, { kind: K }>),
    );
    if (renamed) {
        const service = "serviceId" in renamed && renamed.serviceId !== undefined ? `, service ${renamed.serviceId}` : "";
        throw new JournalClaimError(
            `the order journal holds an unfinished ${renamed.kind} for ${renamed.key} (${renamed.hostname}${service}), sent ${renamed.sentAt}: ` +
                `the same intent in this stack, perhaps this resource before a rename. Nothing was sent, so that it cannot be paid twice. ` +
                `If this resource was renamed, run \`pulumi up\` once under the old name (it records what was sent without sending it ` +
                `again), then rename it with the alias. If it is another resource, run \`pulumi up\` with that one first.`,
        );
    }
    return undefined;
}

/**
 * The program's side of settling (sdk/): the engine answers a registration only after saving the resource in the stack's
 * checkpoint, so once the program holds its id, the entry of the write that made it is redundant and is removed at once,
 * not at the next diff (where another stack in the same directory could meanwhile take it for its own).
 */
export async function settleRecorded(journal: OrderJournal, key: string, kind: "order" | "hook", id: number): Promise<void> {
    const entry = await journal.read(key, kind);
    if (!entry) return;
    const made = entry.kind === "order" ? entry.serviceId : entry.hookId;
    if (made === id && (entry.state === "ordered" || entry.state === "created" || entry.state === "done")) await journal.clear(key, kind);
}

/** A server is cancelled: its entries go with it (another server of the same resource keeps its own). */
export async function forgetService(journal: OrderJournal, key: string, serviceId: number): Promise<void> {
    for (const e of await journal.entriesOf(key)) {
        if ((e.kind === "order" || e.kind === "upgrade") && e.serviceId === serviceId) await journal.clear(key, e.kind);
    }
}

/**
 * The engine has the resource in state with these outputs: journal entries it makes redundant are removed, and
 * what the journal holds that the state does not (a replacement's order whose deployment stopped, services an
 * order named beyond the one held) is said again, on every diff and read, until the user resolves it.
 * Called from diff, read, update and delete; cheap: one listing of the resource's own entries, usually empty.
 */
export async function settle(journal: OrderJournal, props: Record<string, unknown>, log: (line: string) => void = () => undefined): Promise<void> {
    const key = props[RESOURCE_KEY];
    if (typeof key !== "string" || (props.hookId === undefined && props.serviceId === undefined)) return;
    const entries = await journal.entriesOf(key);
    const find = <K extends JournalKind>(kind: K) => entries.find((e): e is Extract<JournalEntry, { kind: K }> => e.kind === kind);
    if (props.hookId !== undefined) {
        const hook = find("hook");
        if (hook?.state === "done" && hook.hookId === props.hookId) await journal.clear(key, "hook");
    }
    if (props.serviceId === undefined) return;
    const order = find("order");
    if ((order?.state === "ordered" || order?.state === "created") && order.serviceId === props.serviceId) await journal.clear(key, "order");
    // A replacement's new half that the engine saved was settled by the program at once: one still here names a server no state holds.
    else if ((order?.state === "ordered" || order?.state === "created") && order.serviceId !== undefined && order.serviceId !== props.serviceId) {
        log(
            `warning: ${key} holds service ${String(props.serviceId)}, but the order journal records service ${order.serviceId} ` +
                `(order ${order.orderId ?? "?"}, ${order.hostname}, sent ${order.sentAt}) ordered for it by a deployment that did not finish ` +
                `(a replacement, or a create, that stopped). That server may be billed outside any state: adopt it with adoptKvmId on a ` +
                `resource, or cancel it in the EDIS client area; then run \`${resolveCommand("forget", key, journal, "order")}\`.`,
        );
    }
    const extra = find("extra");
    if (extra) {
        log(
            `warning: order ${extra.orderIds.join(", ") || "?"} for ${key} also named service(s) ${extra.serviceIds.join(", ")}, which no resource holds and ` +
                `which may be billed: look each up in the EDIS client area's services (an add-on billed as its own service has no KVM and ` +
                `cannot be adopted; a server can be adopted with adoptKvmId on a resource), or cancel it there; then run ` +
                `\`${resolveCommand("forget", key, journal, "extra")}\`.`,
        );
    }
    const upgrade = find("upgrade");
    if (upgrade?.state === "done" && upgrade.serviceId === props.serviceId) {
        if (upgrade.toPlanId === props.planId && upgrade.billingCycle === props.billingCycle) await journal.clear(key, "upgrade");
        else {
            // Made at EDIS, then the update failed and the program went back: EDIS bills the new plan, state shows the old.
            log(
                `warning: service ${upgrade.serviceId} was changed at EDIS to plan ${upgrade.toPlanId}, ${upgrade.billingCycle} at ${upgrade.sentAt} ` +
                    `(order journal), but the stack's state records plan ${String(props.planId)}, ${String(props.billingCycle)}: declare that plan ` +
                    `to record it (nothing is sent again), or check the service in the EDIS client area.`,
            );
        }
    }
}
