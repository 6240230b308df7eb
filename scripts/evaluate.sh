#!/usr/bin/env bash
# Evaluates the best network of an Othello, Go or backgammon run the way docs/benchmarks.md reports the
# figures of these games (Connect Four has scripts/evaluate-connect4.sh). The game comes from the run's
# config.yaml; the network plays at the simulations named below, colours alternate, and every head-to-head
# is GAMES games (default 100):
#   othello:size=6  200 sims against mcts:rollouts=1000 (4 random plies), then arena bench on the 6x6 sets
#                   of data/othello (mistake rate and mean disc loss), beside alphabeta:depth=6, and arena
#                   compare of the two on the same positions (exact McNemar test)
#   othello:size=8  SIMS (default 200) against grhino:level=L for L in LEVELS (default "1 2 3 4 5"; 4 random
#                   plies), then arena bench on the 8x8 tuning sets and, apart, the held-out sets (200 sims)
#   go:...          SIMS (default 150 on 7x7, 200 otherwise) against gnugo:level=L for L in LEVELS (default
#                   "10" on 7x7, "0 5 10" otherwise; 2 random plies), komi from the run's game; then against
#                   pachi:playouts=P for P in PACHI (default "1000 4000 10000 30000" on 9x9 and larger, none
#                   on smaller boards; PACHI_GAMES games each, default GAMES)
#   backgammon      (either scoring: backgammon or backgammon:scoring=money; every match is played in the run's game)
#                   SIMS (default 100; docs/benchmarks.md's figures use SIMS=800) against pubeval (GAMES, default 1000),
#                   then gnubg rates both in their own match
#                   (arena rate, RATE_GAMES, default 100): mean equity lost per decision; then against
#                   gnubg:ply=0 (GNUBG_GAMES, default 400; 0 skips), whose match gnubg then rates too (every
#                   turn's verdict to OUT/rate-gnubg0.jsonl); then against
#                   expectimax:depth=1 and depth=2 with the hand evaluation (D1_GAMES, D2_GAMES, default
#                   GAMES; 0 skips); every match plays each dice sequence twice, colours swapped
# NET_OPTS adds settings to the network player (NET_OPTS=,sym=8: the network averaged over the board's 8
# symmetries); OUT puts the results elsewhere (default RUN/eval).
# Results go to OUT (JSON lines per game or position) and to the terminal.
#
#   scripts/evaluate.sh RUN_DIR   (env: GAMES LEVELS SIMS RATE_GAMES SEED=1 NET_OPTS= OUT=RUN/eval)
set -euo pipefail
run=${1:?usage: scripts/evaluate.sh RUN_DIR}
[ -f "$run/config.yaml" ] || { echo "evaluate: $run/config.yaml not found (is $run a run folder?)" >&2; exit 2; }
[ -f "$run/checkpoints/best" ] || { echo "evaluate: $run has no best network yet ($run/checkpoints/best)" >&2; exit 2; }
game=$(sed -n 's/^game: *//p' "$run/config.yaml" | head -1 | tr -d '"')
seed=${SEED:-1}
out=${OUT:-$run/eval}
opts=${NET_OPTS:-}
mkdir -p "$out"
# The network is copied so that a run still going (or resumed) cannot change it under the evaluation.
best="$out/best-weights.tbn"
cp "$run/checkpoints/best-weights.tbn" "$best"
arena="$out/arena"
go build -o "$arena" ./cmd/arena
echo "game $game, best network $(tr -d '[:space:]' < "$run/checkpoints/best") (copied to $best)"

match() { # match OPPONENT SIMS PLIES GAMES NAME
  "$arena" match -game "$game" -players "net:path=$best,sims=$2$opts $1" -games "$4" -random-plies "$3" -seed "$seed" \
    -out "$out/match-$5.jsonl" -quiet | tee "$out/match-$5.txt"
}
othello_bench() { # othello_bench SIZE NAME SETS...: net (200 sims) and alphabeta:depth=6 on data/othello sets
  local size=$1 name=$2; shift 2
  local sets=()
  for s in "$@"; do sets+=("data/othello/othello$size-$s.txt"); done
  local list
  list=$(IFS=,; echo "${sets[*]}")
  {
    "$arena" bench -game "$game" -player "net:path=$best,sims=200$opts" -positions "$list" -out "$out/$name-net.jsonl" -quiet
    "$arena" bench -game "$game" -player "alphabeta:depth=6" -positions "$list" -out "$out/$name-alphabeta6.jsonl" -quiet
    # Paired on the same positions: does one make fewer mistakes beyond chance (exact McNemar test)?
    "$arena" compare -a "$out/$name-net.jsonl" -b "$out/$name-alphabeta6.jsonl"
  } | tee "$out/$name.txt"
}

case $game in
othello:size=6)
  match "mcts:rollouts=1000" 200 4 "${GAMES:-100}" uct1000
  othello_bench 6 bench e08-12 e13-16 e17-20 e21-24 critical-e17-20
  othello_bench 6 bench-heldout heldout-e08-12 heldout-e13-16 heldout-e17-20
  ;;
othello | othello:size=8)
  for level in ${LEVELS:-1 2 3 4 5}; do
    match "grhino:level=$level" "${SIMS:-200}" 4 "${GAMES:-100}" "grhino$level"
  done
  othello_bench 8 bench e08-12 e13-16 e17-20 critical-e08-12 critical-e13-16
  # The held-out sets no setting was chosen on (data/othello/README.md): the figures to report.
  othello_bench 8 bench-heldout heldout-e08-12 heldout-e13-16 heldout-e17-20
  ;;
go:*)
  sims=${SIMS:-200}
  levels=${LEVELS:-0 5 10}
  case $game in *size=7*) sims=${SIMS:-150}; levels=${LEVELS:-10} ;; esac
  for level in $levels; do
    match "gnugo:level=$level" "$sims" 2 "${GAMES:-100}" "gnugo$level"
  done
  pachi=${PACHI-1000 4000 10000 30000}
  case $game in *size=5* | *size=6* | *size=7* | *size=8*) pachi=${PACHI:-} ;; esac
  for p in $pachi; do
    match "pachi:playouts=$p" "$sims" 2 "${PACHI_GAMES:-${GAMES:-100}}" "pachi$p"
  done
  ;;
backgammon | backgammon:*)
  sims=${SIMS:-100}
  match pubeval "$sims" 0 "${GAMES:-1000}" pubeval
  "$arena" rate -game "$game" -players "net:path=$best,sims=$sims$opts pubeval" -games "${RATE_GAMES:-100}" -seed "$seed" \
    -out "$out/rate.jsonl" -quiet | tee "$out/rate.txt"
  gnubg_games=${GNUBG_GAMES:-400}
  if [ "$gnubg_games" -gt 0 ]; then
    match "gnubg:ply=0" "$sims" 0 "$gnubg_games" gnubg0
    "$arena" rate -game "$game" -in "$out/match-gnubg0.jsonl" -games 0 -out "$out/rate-gnubg0.jsonl" -quiet | tee "$out/rate-gnubg0.txt"
  fi
  d1=${D1_GAMES:-${GAMES:-1000}} d2=${D2_GAMES:-${GAMES:-1000}}
  if [ "$d1" -gt 0 ]; then match "expectimax:depth=1,eval=hand" "$sims" 0 "$d1" emm1; fi
  if [ "$d2" -gt 0 ]; then match "expectimax:depth=2,eval=hand" "$sims" 0 "$d2" emm2; fi
  ;;
*)
  echo "evaluate: game $game: no evaluation here (Connect Four: scripts/evaluate-connect4.sh)" >&2
  exit 2
  ;;
esac
