"""``python -m tests.simulation.run [--seeds N] [--first S] [--seed S] [--voters 3|5] [--steps K]``:
run the quorum simulation over many seeds, or replay one.

Prints one line per failing seed (``seed=N <invariant>: <detail>``, replayed exactly by
``--seed N`` with the same ``--voters`` and ``--steps``), and a summary: seeds run,
failures, simulated time, wall time, and what the runs went through (crashes, elected
epochs, snapshots taken and loaded, committed entries).  ``--seed`` also prints the trace
hash.  Exits 1 when any seed failed.  ``make simulate`` (``SEEDS=n``, ``SEED=n``) runs it.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections import Counter
from dataclasses import dataclass, field

from kafkette.controller.raft.kafka_raft_client import KafkaRaftClient
from tests.simulation.invariants import InvariantViolation
from tests.simulation.simulator import TICK_MS, ClientFactory, Simulation

SIMULATION_RUNS = "the simulation itself runs"


@dataclass
class SeedsReport:
    """The outcome of many seeds: ``failures`` as (seed, invariant, message)."""

    seeds: int = 0
    failures: list[tuple[int, str, str]] = field(default_factory=list)
    simulated_ms: int = 0
    stats: Counter[str] = field(default_factory=Counter)
    trace_hashes: dict[int, str] = field(default_factory=dict)


def run_seeds(
    seeds: range,
    voters: int = 3,
    steps: int = 600,
    verbose: bool = True,
    client_factory: ClientFactory = KafkaRaftClient,
) -> SeedsReport:
    """Run each seed of ``seeds`` (``steps`` safety-phase steps each) and collect what broke.

    Args:
        client_factory: builds each voter's Raft core (a broken one shows the checker at work).

    Returns:
        The report; a seed that broke an invariant is printed as ``seed=N ...`` when ``verbose``.
    """
    report = SeedsReport()
    for seed in seeds:
        simulation = Simulation(seed, voters=voters, safety_steps=steps, client_factory=client_factory)
        try:
            report.trace_hashes[seed] = simulation.run()
        except InvariantViolation as exc:
            report.failures.append((seed, exc.invariant, str(exc)))
            if verbose:
                print(f"seed={seed} {exc}", flush=True)
        except Exception as exc:  # a bug of the simulation itself: still name the seed that shows it
            report.failures.append((seed, SIMULATION_RUNS, f"{SIMULATION_RUNS}: {exc!r}"))
            if verbose:
                print(f"seed={seed} {SIMULATION_RUNS}: {exc!r}", flush=True)
        report.seeds += 1
        report.simulated_ms += simulation.now_ms
        report.stats.update(simulation.stats)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.simulation.run",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--seeds", type=int, default=1000, help="how many seeds (from --first); default 1000")
    parser.add_argument("--first", type=int, default=0, help="the first seed; default 0")
    parser.add_argument("--seed", type=int, default=None, help="replay this one seed")
    parser.add_argument("--voters", type=int, choices=(3, 5), default=3, help="default 3")
    parser.add_argument(
        "--steps", type=int, default=600, help=f"safety-phase steps of {TICK_MS} ms; default 600"
    )
    parser.add_argument(
        "--log-level",
        default="ERROR",
        help="of the Raft core's log; default ERROR (INFO shows every role change)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(message)s")
    if args.seed is not None:
        seeds = range(args.seed, args.seed + 1)
    else:
        seeds = range(args.first, args.first + args.seeds)
    started = time.monotonic()
    report = run_seeds(seeds, args.voters, args.steps)
    stats = ", ".join(f"{count} {name}" for name, count in sorted(report.stats.items()))
    print(
        f"{report.seeds} seeds run, {len(report.failures)} failed, {args.voters} voters, "
        f"{report.simulated_ms / 1000:.0f} s simulated, {time.monotonic() - started:.1f} s wall ({stats})"
    )
    if args.seed is not None and args.seed in report.trace_hashes:
        print(f"seed={args.seed} trace {report.trace_hashes[args.seed]}")
    if report.failures:
        print(
            f"replay one: python -m tests.simulation.run --seed {report.failures[0][0]} --voters "
            f"{args.voters} --steps {args.steps}"
        )
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
