#!/usr/bin/env bash
# Evaluates the best network of a chess run (configs/chess.yaml) the way docs/benchmarks.md reports it: the
# network at SIMS simulations (default 100) against random, alphabeta:depth=1, alphabeta:depth=2 and
# stockfish:elo=1350 (Debian's Stockfish, UCI_LimitStrength), GAMES games each (default 24), colour-paired from
# data/chess/openings.txt (games 2m and 2m+1 start from opening m, one with each colour). Games are played under
# GAME (default chess:maxplies=300: a draw by adjudication after 300 plies, besides the rules' draws).
# Each match's games go to OUT (default RUN/eval) as JSON lines and PGN, its table and CPU-seconds to the terminal.
#
#   scripts/evaluate-chess.sh RUN_DIR   (env: GAMES SIMS GAME SEED=1 OPPONENTS OUT=RUN/eval)
set -euo pipefail
run=${1:?usage: scripts/evaluate-chess.sh RUN_DIR}
[ -f "$run/checkpoints/best-weights.tbn" ] || { echo "evaluate-chess: $run has no best network yet ($run/checkpoints/best-weights.tbn)" >&2; exit 2; }
export PATH=$PATH:/usr/games
out=${OUT:-$run/eval}
game=${GAME:-chess:maxplies=300}
sims=${SIMS:-100}
games=${GAMES:-24}
seed=${SEED:-1}
opponents=${OPPONENTS:-random alphabeta:depth=1 alphabeta:depth=2 stockfish:elo=1350}
mkdir -p "$out"
# The network is copied so that a run still going (or resumed) cannot change it under the evaluation.
best="$out/best-weights.tbn"
cp "$run/checkpoints/best-weights.tbn" "$best"
arena="$out/arena"
go build -o "$arena" ./cmd/arena
echo "best network $(tr -d '[:space:]' < "$run/checkpoints/best" 2>/dev/null || echo '?') (copied to $best), $game, $sims sims, $games games each"
for opp in $opponents; do
  name=$(echo "$opp" | tr ':=,' '---')
  /usr/bin/time -f "$opp: %U user + %S sys CPU-seconds, %e s wall" \
    "$arena" match -game "$game" -players "net:path=$best,sims=$sims $opp" -games "$games" -seed "$seed" \
    -openings data/chess/openings.txt -out "$out/match-$name.jsonl" -pgn "$out/match-$name.pgn" -quiet 2>&1 |
    tee "$out/match-$name.txt"
done
