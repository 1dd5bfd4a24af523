"""``python -m tests.simulation.run [--seeds N] [--first S] [--seed S] [--voters 3|5] [--steps K]``:
run the quorum simulation over many seeds, or replay one.

Prints one line per failing seed (``seed=N invariant: detail``, replayable with
``--seed N``) and a summary (seeds run, failures, simulated and wall time); exits 1 when
any seed failed.  ``make simulate`` runs it.
"""

from __future__ import annotations

import argparse
import sys
import time

from tests.simulation.simulator import InvariantViolation, Simulation


def run_seeds(seeds: range, voters: int, steps: int) -> list[tuple[int, str]]:
    """Run each seed; the (seed, message) of every failure."""
    failures = []
    for seed in seeds:
        try:
            Simulation(seed, voters=voters, safety_steps=steps).run()
        except InvariantViolation as exc:
            failures.append((seed, str(exc)))
            print(f"seed={seed} {exc}", flush=True)
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.simulation.run", description=__doc__)
    parser.add_argument("--seeds", type=int, default=1000, help="how many seeds (from --first)")
    parser.add_argument("--first", type=int, default=0, help="the first seed")
    parser.add_argument("--seed", type=int, default=None, help="replay this one seed")
    parser.add_argument("--voters", type=int, choices=(3, 5), default=3)
    parser.add_argument("--steps", type=int, default=600, help="safety-phase ticks of 10 ms per seed")
    args = parser.parse_args(argv)
    seeds = range(args.seed, args.seed + 1) if args.seed is not None else range(args.first, args.first + args.seeds)
    started = time.monotonic()
    failures = run_seeds(seeds, args.voters, args.steps)
    print(f"{len(seeds)} seeds, {len(failures)} failed, {args.voters} voters, {args.steps * 10 / 1000:.0f} s of "
          f"faults each, {time.monotonic() - started:.1f} s wall")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
