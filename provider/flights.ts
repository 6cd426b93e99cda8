/** Creates in flight and where they meet: a Gathering acts once all arrived or passed, so counts follow --parallel. */
import { AsyncLocalStorage } from "node:async_hooks";
import { Clock } from "./clock";

/** One point where the creates in flight meet; `act` receives what every one that arrived brought. */
export class Gathering<W> {
    private arrived: W[] = [];
    /** Creates in flight that have neither arrived nor finished. */
    private expected = 0;
    /** The number of the pending time limit (0: none); a limit that an earlier act overtook does nothing. */
    private timer = 0;
    private timers = 0;
    private lastChange = -Infinity;
    private quietCheck = false;

    constructor(
        private readonly clock: Clock,
        private readonly maxWaitMs: number,
        private readonly act: (arrived: W[]) => void,
        private readonly quietMs = 0,
    ) {}

    /** A create that may arrive here has started. */
    expect(): void {
        this.expected++;
        this.lastChange = this.clock.now();
    }

    /** A create that was expected finished without arriving. */
    pass(): void {
        this.expected--;
        this.actIfComplete();
    }

    /** Arrives (`expected`: as a create this gathering counted on) and waits for the others, within the time limit. */
    arrive(what: W, expected: boolean): void {
        if (expected) this.expected--;
        this.arrived.push(what);
        this.lastChange = this.clock.now();
        if (this.actIfComplete() || this.timer !== 0) return;
        const timer = (this.timer = ++this.timers);
        void this.clock.sleep(this.maxWaitMs).then(() => this.timer === timer && this.actNow());
    }

    private actIfComplete(): boolean {
        if (this.arrived.length === 0 || this.expected > 0) return false;
        const quietFor = this.clock.now() - this.lastChange;
        if (quietFor >= this.quietMs) {
            this.actNow();
            return true;
        }
        // Complete, but a create started a moment ago: look again once it has been quiet for long enough.
        if (!this.quietCheck) {
            this.quietCheck = true;
            void this.clock.sleep(this.quietMs - quietFor).then(() => {
                this.quietCheck = false;
                this.actIfComplete();
            });
        }
        return false;
    }

    private actNow(): void {
        const arrived = this.arrived.splice(0);
        this.timer = 0;
        if (arrived.length) this.act(arrived);
    }
}

/** The creates in flight, each counted by every gathering it may reach (and knowing the gatherings it has met). */
export class Flights {
    private readonly current = new AsyncLocalStorage<Set<Gathering<unknown>>>();
    private readonly gatherings: Array<Gathering<unknown>> = [];

    /** A gathering that every create from now on is expected at. */
    add<W>(gathering: Gathering<W>): Gathering<W> {
        this.gatherings.push(gathering as Gathering<unknown>);
        return gathering;
    }

    /** Runs one create as a flight: expected at every gathering until it arrives there or finishes. */
    async run<T>(work: () => Promise<T>): Promise<T> {
        const met = new Set<Gathering<unknown>>();
        for (const g of this.gatherings) g.expect();
        try {
            return await this.current.run(met, work);
        } finally {
            for (const g of this.gatherings) if (!met.has(g)) g.pass();
        }
    }

    /** The calling create will not arrive at this gathering: the others need not wait for it. */
    leave<W>(gathering: Gathering<W>): void {
        const [met, g] = [this.current.getStore(), gathering as Gathering<unknown>];
        if (!met || met.has(g) || !this.gatherings.includes(g)) return;
        met.add(g);
        gathering.pass();
    }

    /** Arrives at a gathering as the calling create (or as a caller outside any create, whom nobody waits for). */
    arrive<W>(gathering: Gathering<W>, what: W): void {
        const [met, g] = [this.current.getStore(), gathering as Gathering<unknown>];
        const expected = !!met && this.gatherings.includes(g) && !met.has(g);
        if (expected) met.add(g);
        gathering.arrive(what, expected);
    }
}
