/**
 * The one path of every paid or non-repeatable write, sent at most once per intent: claimed "sending" (a second
 * deployment stops), sent once. Only a request that never left clears the entry; any other failure records what it
 * names, else "unknown" (never resent). A journal write failing after the answer only warns: "sending" still blocks.
 */
import { nothingHappened } from "./client/answers";
import type { ENDPOINTS } from "./client/client";
import { EdisApiError, isEdisApiError } from "./client/errors";
import type { MANAGEMENT_ENDPOINTS } from "./client/management";
import { HookEntry, OrderEntry, OrderJournal, UpgradeEntry } from "./journal";

type WriteEntry = OrderEntry | UpgradeEntry | HookEntry;

/** A write whose outcome is not known: it may or may not have been made, and it is not sent again. */
export class WriteOutcomeUnknownError extends Error {
    constructor(
        /** What was sent, e.g. "the order of web-1". */
        readonly what: string,
        readonly problem: string,
        /** How the user finds out, and the commands that record what they found. */
        readonly resolution: string,
    ) {
        super(`${what} may or may not have been made: ${problem}. It is not sent again, so that it cannot be paid twice. ${resolution}`);
        this.name = "WriteOutcomeUnknownError";
    }
}

export interface PaidWrite<E extends WriteEntry, R> {
    /** The journal, and the "sending" entry; without an entry (no resource key) nothing is recorded. */
    journal: OrderJournal;
    entry?: E;
    /** Instead of `entry`: a batched order's entries, claimed already; `made`/`madeDespite` get each index. */
    claimed?: E[];
    /** The write's endpoint, as its client names it: a failure of another call before it (a session, a lookup) means it was never sent. */
    endpoint: typeof ENDPOINTS.order.path | typeof ENDPOINTS.upgrade.path | typeof MANAGEMENT_ENDPOINTS.hookSet.path;
    send(): Promise<R>;
    made(sending: E, result: R, index: number): E;
    /** The entry that records a failed answer naming what was made; undefined when it names nothing. */
    madeDespite(sending: E, e: EdisApiError, index: number): E | undefined;
    /** Services the answer names that no entry holds (an order's ids past its items' places): recorded first. */
    extra?(outcome: PaidOutcome<R>): { orderId?: number; serviceIds: number[] };
    unknown(problem: string, entry?: E): WriteOutcomeUnknownError;
    log(line: string): void;
    /** A cancelled deployment: the write is not sent (a batch, claimed already, checks before it claims). */
    cancelled?: AbortSignal;
}

export type PaidOutcome<R> = { answered: R } | { named: EdisApiError };

export async function sendOnce<E extends WriteEntry, R>(w: PaidWrite<E, R>): Promise<PaidOutcome<R>> {
    if (w.cancelled?.aborted) throw new Error(`the deployment was cancelled before ${w.endpoint}${w.entry ? ` for ${w.entry.hostname}` : ""} was sent: nothing was sent`);
    if (w.entry) await w.journal.claim(w.entry);
    const entries = w.claimed ?? (w.entry ? [w.entry] : []);
    const warn = (what: string) => (e: unknown) => w.log(`warning: the order journal could not ${what}: ${(e as Error).message}`);
    const record = (entry: E) => w.journal.write(entry).catch(warn(`record the ${entry.kind} of ${entry.hostname}`));
    const recordEach = async (entryOf: (sending: E, index: number) => E) => {
        const written = entries.map(entryOf);
        await Promise.all(written.map(record));
        return written;
    };
    // Nothing was made: the entry goes. One that cannot be removed stays "sending" and blocks the write until the user says.
    const clearEach = () => Promise.all(entries.map((s) => w.journal.clear(s.key, s.kind).catch(warn(`remove the entry of ${s.hostname}`))));
    /** The outcome is unknown: each entry says so, and the error to throw names the first. */
    const unknownBecause = async (problem: string) => w.unknown(problem, (await recordEach((sending) => ({ ...sending, state: "unknown", problem }) as E))[0]);
    /** Before any entry's outcome: a process that dies between the two writes has lost none of them. */
    const keepExtra = async (outcome: PaidOutcome<R>) => {
        const extra = w.extra?.(outcome);
        if (extra?.serviceIds.length && entries[0]) await recordExtra(w.journal, entries[0], extra.orderId, extra.serviceIds).catch(warn(`record services ${extra.serviceIds.join(", ")}`));
    };
    let result: R;
    try {
        result = await w.send();
    } catch (e) {
        // A failure of this side after the write was sent: nothing says what EDIS did.
        if (!isEdisApiError(e)) throw await unknownBecause(e instanceof Error ? e.message : String(e));
        if (e.endpoint !== w.endpoint || nothingHappened(e)) {
            await clearEach();
            throw e;
        }
        const named = entries.map((sending, i) => w.madeDespite(sending, e, i));
        if (named.some(Boolean) || (!entries.length && (e.serviceIds?.length || e.orderId !== undefined))) {
            await keepExtra({ named: e });
            await recordEach((sending, i) => named[i] ?? { ...sending, state: "unknown", problem: e.message });
            return { named: e };
        }
        // EDIS's words, withheld if they hold a credential.
        throw await unknownBecause(`${e.message}. EDIS's answer does not show that nothing was made (only a request that never left this machine shows that)`);
    }
    await keepExtra({ answered: result });
    await recordEach((sending, i) => w.made(sending, result, i));
    return { answered: result };
}

/** Services an answer named that no resource holds, added to what the entry's resource has recorded: billed, in no state. */
async function recordExtra(journal: OrderJournal, entry: WriteEntry, orderId: number | undefined, serviceIds: number[]): Promise<void> {
    const had = await journal.read(entry.key, "extra");
    const union = (a: number[], b: number[]) => [...new Set([...a, ...b])];
    await journal.write({
        kind: "extra",
        state: "unclaimed",
        key: entry.key,
        hostname: entry.hostname,
        sentAt: entry.sentAt,
        orderIds: union(had?.orderIds ?? [], orderId === undefined ? [] : [orderId]),
        serviceIds: union(had?.serviceIds ?? [], serviceIds),
    });
}
