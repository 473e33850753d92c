"""The search agent's CPU time a decision at its default budget, against an earlier commit.

Both trees' ``search`` spec (each game's preset: budget, rollout policy, prior) decides the same
positions: every decision of seat 0 with more than one legal action in games of the heuristic
against itself from fixed seeds. Each tree runs in a fresh process (numba's compiled kernels
warmed on one position first, not counted), and its CPU time (``time.process_time``) over the
positions gives decisions per CPU second; rounds alternate the order, and the ratio is the
median of the rounds' ratios now / before.

    python benchmarks/search_speed.py [--rounds 3] [--positions 40] [--out DIR]

Prints the table and writes ``search_speed.{md,json}`` into ``--out``.
"""

from __future__ import annotations

import argparse
import json

from earlier import BEFORE, REPOSITORY, earlier_tree, ratio_table, run_on, take_turns, write_results

TARGET = 10.0
CASES = [("heisse-luft", 2), ("heisse-karten", 2), ("heisse-karten", 4)]

CHILD = """if True:
    import json, sys, time
    from hot_envs.agents import make_agent
    from hot_envs.core.games import get_game

    game, players, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    engine = get_game(game).engine
    options = {"num_players": players} if game == "heisse-karten" else {}

    def observe(state, seat):
        return {
            "observation": engine.encode(state, seat),
            "action_mask": engine.action_mask(state, seat),
        }

    positions, seed = [], 0
    heuristic = make_agent("heuristic", game, 0)
    while len(positions) < count + 1:
        state = engine.State.new(seed=seed, **options)
        while not state.is_terminal():
            seat = state.current_player
            view = state.view(seat)
            if seat == 0 and len(view["legal_actions"]) > 1:
                positions.append(state.clone())
            state.apply(heuristic.act(observe(state, seat), view))
        seed += 1
    search = make_agent("search", game, 0)
    warm = positions[0]
    search.act(observe(warm, 0), warm.view(0))  # compiles what the search compiles
    start = time.process_time()
    for state in positions[1 : count + 1]:
        search.act(observe(state, 0), state.view(0))
    print(json.dumps(count / (time.process_time() - start)))
"""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--positions", type=int, default=40, help="decisions timed per run")
    parser.add_argument("--out", default=str(REPOSITORY / "benchmarks" / "results"))
    args = parser.parse_args(argv)

    from pathlib import Path

    from tqdm import tqdm

    rows = []
    with earlier_tree() as before, tqdm(total=2 * args.rounds * len(CASES), unit="run") as bar:
        for game, players in CASES:

            def measure(which: str, _round: int, game: str = game, players: int = players) -> float:
                tree = before if which == "before" else None
                command = ["-c", CHILD, game, str(players), str(args.positions)]
                return float(json.loads(run_on(tree, command)))

            row = take_turns(args.rounds, measure, bar)
            row["case"] = f"{game}, {players} players: search decisions per CPU second"
            rows.append(row)
    table = ratio_table(("measure", f"at {BEFORE[:7]}", "now"), rows, TARGET)
    for row in rows:  # decisions per second to milliseconds a decision, for the docs
        row["ms_before"], row["ms_now"] = 1000 / row["before"], 1000 / row["now"]
    print(table)
    write_results(Path(args.out), "search_speed", table, rows, positions=args.positions)


if __name__ == "__main__":
    main()
