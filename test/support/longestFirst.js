// Starts the suites that take longest first, so that the workers finish together: on a fresh clone jest has no timings
// of its own and orders by file size, which left a 3-minute suite to run alone at the end. The rest follow jest's order.
const Sequencer = require("@jest/test-sequencer").default;

// By their time in CI, longest first.
const LONGEST = ["ownership.cli", "examples.cli", "sharedJournal.cli", "plugin.cli", "money.cli", "answers.cli", "identity.cli", "lifecycle.cli", "answers.property"];

class LongestFirst extends Sequencer {
    sort(tests) {
        const rank = (test) => {
            const i = LONGEST.findIndex((name) => test.path.endsWith(`${name}.test.ts`));
            return i < 0 ? LONGEST.length : i;
        };
        return [...super.sort(tests)].sort((a, b) => rank(a) - rank(b));
    }
}

module.exports = LongestFirst;
