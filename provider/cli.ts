#!/usr/bin/env node
/**
 * `npx pulumi-edis orders list|forget|confirm [RESOURCE] [--dir DIR]`: the order journal's side of the
 * conversation with the user, for a paid write whose outcome is unknown (see journal.ts). The provider's
 * error names the exact command; RESOURCE is "project/stack/name", DIR the journal directory (default
 * .pulumi-edis/journal in the program's directory, or EDIS_JOURNAL_DIR).
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { DEFAULT_JOURNAL_DIR, JournalEntry, OrderJournal } from "./journal";

const USAGE = `usage: pulumi-edis orders list [--dir DIR]
       pulumi-edis orders forget RESOURCE [--dir DIR]    no order, plan change or traffic hook was made: allow it to be sent again
       pulumi-edis orders confirm RESOURCE [--dir DIR]   the plan change was made: record it, do not send it again
RESOURCE is "project/stack/name" as the provider's error names it; DIR defaults to EDIS_JOURNAL_DIR or ${DEFAULT_JOURNAL_DIR}.`;

function describe(e: JournalEntry): string {
    const what =
        e.kind === "order"
            ? `order of ${e.hostname}`
            : e.kind === "upgrade"
              ? `plan change of ${e.hostname} to plan ${e.toPlanId}, ${e.billingCycle}`
              : `traffic hook on ${e.kvmId} (${e.callbackUrl} at ${e.triggerPercent}%)${e.hookId !== undefined ? `, hook ${e.hookId}` : ""}`;
    const ids = e.kind !== "hook" && e.serviceId !== undefined ? `, service ${e.serviceId}` : "";
    return `${e.key}  ${e.kind}  ${e.state}  ${what}${ids}, sent ${e.sentAt}${e.problem ? ` (${e.problem})` : ""}`;
}

export function runOrdersCli(argv: string[], out: (line: string) => void = console.log): number {
    const { values, positionals } = parseArgs({ args: argv, options: { dir: { type: "string" }, help: { type: "boolean", short: "h" } }, allowPositionals: true });
    const [group, verb, key] = positionals;
    if (values.help || group !== "orders" || !["list", "forget", "confirm"].includes(verb ?? "") || (verb !== "list" && !key)) {
        out(USAGE);
        return values.help ? 0 : 2;
    }
    const journal = new OrderJournal(resolve(values.dir ?? process.env.EDIS_JOURNAL_DIR ?? DEFAULT_JOURNAL_DIR));
    if (verb === "list") {
        const entries = journal.list();
        out(entries.length ? entries.map(describe).join("\n") : `no entries in ${journal.dir}`);
        return 0;
    }
    const order = journal.read(key, "order");
    const upgrade = journal.read(key, "upgrade");
    if (verb === "forget") {
        const open = [order, upgrade, journal.read(key, "hook")].filter((e): e is JournalEntry => !!e && e.state !== "ordered" && e.state !== "done");
        if (!open.length) {
            out(`${key}: nothing unresolved in ${journal.dir}${order || upgrade ? " (its entries are known results, kept until Pulumi's state has them)" : ""}`);
            return 1;
        }
        for (const e of open) {
            journal.clear(key, e.kind);
            out(`forgot: ${describe(e)}; the next \`pulumi up\` sends it again`);
        }
        return 0;
    }
    if (!upgrade || upgrade.state === "done") {
        out(`${key}: no unresolved plan change in ${journal.dir}${order ? "; an order whose outcome is unknown is resolved with adoptKvmId (it exists) or forget (it does not)" : ""}`);
        return 1;
    }
    journal.write({ ...upgrade, state: "done" });
    out(`confirmed: ${describe({ ...upgrade, state: "done" })}; the next \`pulumi up\` records it without sending it again`);
    return 0;
}

if (require.main === module) process.exit(runOrdersCli(process.argv.slice(2)));
