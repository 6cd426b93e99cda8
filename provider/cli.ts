#!/usr/bin/env node
/** `pulumi-edis orders list|forget|confirm|move` (the package's bin): resolves paid writes whose outcome is unknown (journal/index.ts). */
import { parseArgs } from "node:util";
import { DEFAULT_JOURNAL_DIR, JournalEntry, OrderEntry, OrderJournal, URN64, entryId, journalStoreAt, sameResourceElsewhere } from "./journal";
import { resolve } from "node:path";
import { JournalLocation, journalLocationFrom } from "./journal/location";
import { packageVersion } from "./version";

const USAGE = `usage: pulumi-edis orders list [--batch ID] [STORE]
       pulumi-edis orders forget RESOURCE [--kind K] [STORE]       no order, plan change or traffic hook was made (or the extra
                                                         services are dealt with): allow it to be sent again; K is
                                                         order, upgrade, hook, extra or adoption (a server's holder) (default: every entry)
       pulumi-edis orders forget --batch ID [STORE]      no server of the batched order ID was made: allow every one of
                                                         them to be ordered again (the error of each member names ID)
       pulumi-edis orders confirm RESOURCE [STORE]       the plan change was made: record it, do not send it again
       pulumi-edis orders move FROM TO [STORE]           the entries of FROM are this resource's (a renamed stack): hand them to TO
       pulumi-edis --version | --help
RESOURCE is the id the provider's error names (or the resource's URN). STORE is --journal URL, the journal's
store as edis:journalUrl names it (file://<dir>, or s3://<bucket>/<prefix>?endpoint=...&region=...
with credentials from the AWS SDK's standard chain), or --dir DIR; the default is EDIS_JOURNAL_URL,
or ${DEFAULT_JOURNAL_DIR}.`;

function describe(e: JournalEntry): string {
    const what =
        e.kind === "order"
            ? `order of ${e.hostname}${e.batch ? ` (batch ${e.batch.id}, ${e.batch.index + 1} of ${e.batch.hostnames.length})` : ""}`
            : e.kind === "upgrade"
              ? `plan change of ${e.hostname} to plan ${e.toPlanId}, ${e.billingCycle}`
                : e.kind === "adoption"
                ? `${e.kvmId || "a server"} (service ${e.serviceId}) held by ${e.holder}${e.previous?.length ? `, adopted from ${e.previous.map((p) => p.holder).join(", ")}` : ""}`
                : e.kind === "extra"
                ? `service(s) ${e.serviceIds.join(", ")} that order ${e.orderIds.join(", ") || "?"} named beyond the one ${e.hostname} holds`
                : `traffic hook on ${e.kvmId} (${e.callbackUrl} at ${e.triggerPercent}%)${e.hookId !== undefined ? `, hook ${e.hookId}` : ""}`;
    const ids = (e.kind === "order" || e.kind === "upgrade") && e.serviceId !== undefined ? `, service ${e.serviceId}` : "";
    return `${e.key}  ${e.kind}  ${e.state}  ${what}${ids}, sent ${e.sentAt}${e.problem ? ` (${e.problem})` : ""}`;
}

export async function runOrdersCli(argv: string[], out: (line: string) => void = console.log): Promise<number> {
    let parsed;
    try {
        parsed = parseArgs({
            args: argv,
            options: { dir: { type: "string" }, journal: { type: "string" }, kind: { type: "string" }, batch: { type: "string" }, help: { type: "boolean", short: "h" }, version: { type: "boolean", short: "v" } },
            allowPositionals: true,
        });
    } catch (e) {
        out(`pulumi-edis: ${(e as Error).message}\n${USAGE}`);
        return 2;
    }
    const { values, positionals } = parsed;
    if (values.version) {
        out(`pulumi-edis ${packageVersion()}`);
        return 0;
    }
    const [group, verb, keyWord, toWord] = positionals;
    const kinds = ["order", "upgrade", "hook", "extra", "adoption"];
    if (values.kind !== undefined && !kinds.includes(values.kind)) {
        out(`--kind must be one of ${kinds.join(", ")}, not "${values.kind}"`);
        return 2;
    }
    // --batch goes with forget and list only.
    const usable =
        group === "orders" &&
        (verb === "list" ||
            (verb === "forget" && values.batch !== undefined && !keyWord) ||
            (["forget", "confirm"].includes(verb ?? "") && keyWord && values.batch === undefined) ||
            (verb === "move" && keyWord && toWord && values.batch === undefined));
    if (values.help || !usable) {
        out(USAGE);
        return values.help ? 0 : 2;
    }
    const location = storeOption(values.journal, values.dir);
    if (location.kind === "unusable") {
        out(`pulumi-edis: ${location.problem}`);
        return 2;
    }
    try {
        return await runOn(new OrderJournal(journalStoreAt(location)), verb!, keyWord, toWord, values, out);
    } catch (e) {
        out(`pulumi-edis: ${(e as Error).message}`);
        return 1;
    }
}

async function runOn(
    journal: OrderJournal,
    verb: string,
    keyWord: string | undefined,
    toWord: string | undefined,
    values: { kind?: string; batch?: string },
    out: (line: string) => void,
): Promise<number> {
    const entries = await journal.list();
    const keyOf = (word: string | undefined): string | undefined => {
        // A mistyped URN64 word decodes to something else, which the move refuses.
        if (word?.startsWith(URN64)) {
            const payload = word.slice(URN64.length);
            const urn = Buffer.from(payload, "base64url").toString("utf8");
            return Buffer.from(urn).toString("base64url") === payload ? urn : word;
        }
        if (word === undefined || !/^[0-9a-f]{16}$/.test(word)) return word;
        return entries.map((e) => e.key).find((k) => entryId(k) === word) ?? word;
    };
    if (verb === "list") {
        const shown = values.batch === undefined ? entries : entries.filter((e) => e.kind === "order" && e.batch?.id === values.batch);
        out(shown.length ? shown.map(describe).join("\n") : `no entries${values.batch === undefined ? "" : ` of batch ${values.batch}`} in ${journal.dir}`);
        return 0;
    }
    if (verb === "forget" && values.batch !== undefined) return await forgetBatch(journal, entries, values.batch, out);
    const key = keyOf(keyWord)!;
    const to = keyOf(toWord)!;
    if (verb === "move") {
        if (!sameResourceElsewhere(to, key)) {
            out(
                `${to} is not ${key} under another stack or project (the same parents, type and name): nothing was moved. Copy the ` +
                    `command the error printed whole, or give the resource's URN (\`pulumi stack --show-urns\`).`,
            );
            return 2;
        }
        const moved = await journal.move(key, to);
        out(moved.length ? moved.map((e) => `moved: ${describe(e)}`).join("\n") : `${key}: no entries in ${journal.dir}`);
        return moved.length ? 0 : 1;
    }
    const order = await journal.read(key, "order");
    const upgrade = await journal.read(key, "upgrade");
    if (verb === "forget") {
        const candidates: Array<JournalEntry | undefined> = [order, upgrade];
        for (const kind of ["hook", "extra", "adoption"] as const) candidates.push(await journal.read(key, kind));
        const entries = candidates.filter((e): e is JournalEntry => !!e && (values.kind === undefined || e.kind === values.kind));
        if (!entries.length) {
            out(`${key}: no entries in ${journal.dir}`);
            return 1;
        }
        for (const e of entries) {
            await journal.clear(key, e.kind);
            const known = e.kind === "order" && e.serviceId !== undefined;
            const after =
                e.kind === "adoption"
                    ? `; no holder of service ${e.serviceId} is recorded now: the delete of a resource that holds it cancels it`
                    : known
                      ? `; service ${e.serviceId} is no longer tracked: make sure it is adopted or cancelled`
                      : "; the next `pulumi up` may send it again";
            out(`forgot: ${describe(e)}${after}`);
        }
        return 0;
    }
    if (!upgrade || upgrade.state === "done") {
        out(`${key}: no unresolved plan change in ${journal.dir}${order ? "; an order whose outcome is unknown is resolved with adoptKvmId (it exists) or forget (it does not)" : ""}`);
        return 1;
    }
    await journal.write({ ...upgrade, state: "done" });
    out(`confirmed: ${describe({ ...upgrade, state: "done" })}; the next \`pulumi up\` records it without sending it again`);
    return 0;
}

/** Members with a known service exist, are tracked, and stay. */
async function forgetBatch(journal: OrderJournal, entries: JournalEntry[], batch: string, out: (line: string) => void): Promise<number> {
    const members = entries.filter((e): e is OrderEntry => e.kind === "order" && e.batch?.id === batch);
    const unresolved = members.filter((e) => e.state === "sending" || e.state === "unknown");
    if (!unresolved.length) {
        out(`batch ${batch}: no unresolved order entries in ${journal.dir}${members.length ? ` (${members.length} member(s) have a known service)` : ""}`);
        return 1;
    }
    for (const e of unresolved) {
        await journal.clear(e.key, "order");
        out(`forgot: ${describe(e)}; the next \`pulumi up\` may order it again`);
    }
    return 0;
}

if (require.main === module) void runOrdersCli(process.argv.slice(2)).then((code) => process.exit(code));

function storeOption(url: string | undefined, dir: string | undefined): JournalLocation {
    if (url !== undefined && dir !== undefined) return { kind: "unusable", problem: "--journal and --dir are both given: give one (--journal file://<dir> is the same as --dir <dir>)" };
    if (dir === undefined) return journalLocationFrom(url ?? process.env.EDIS_JOURNAL_URL, url !== undefined ? "--journal" : "EDIS_JOURNAL_URL");
    return dir.trim() === "" ? { kind: "unusable", problem: "--dir is empty: name the journal's directory" } : { kind: "file", dir: resolve(dir) };
}
