#!/usr/bin/env bash
# Evaluates the best network of a Connect Four run the way docs/benchmarks.md reports it:
#   1. GAMES=200 games (colours alternating) of the network with 200 simulations against mcts:rollouts=1000;
#   2. the mistake rate of the network (200 simulations), of the same network without the MCTS-solver
#      (solver=0: the network's own judgement) and of alphabeta:depth=5 on the first N positions of
#      every Pons test set (N_HARD for the slow Begin-Hard set, N_LATE for the middle and end sets, whose
#      verdicts are quick to compute), judged by the built-in solver, and on the held-out set
#      data/connect4/heldout (all of it). SOLVER0=0 leaves out the solver=0 player.
#   3. the network's mistakes on Begin-Medium, Begin-Hard and Middle-Medium split by the best outcome of each
#      position (wins, draws), in OUT/mistakes.txt.
# The solver's verdicts come from data/connect4/verdicts (shipped: the first 1000 positions of every set, 100
# of Begin-Hard) where they cover the positions, else from the solver; they are cached in RUN/bench/.
#
# NET_OPTS adds settings to both network players (NET_OPTS=,graph=1: graph search); OUT puts the results
# elsewhere than RUN/eval (the verdicts are still cached in RUN/bench/). SIMS sets the network players'
# simulations a move (200, the figure docs/benchmarks.md reports; 400 and 800 for the search curve). NET
# evaluates another network file than the run's best (e.g. scripts/avgnet's mean of the last checkpoints).
#
#   scripts/evaluate-connect4.sh [RUN_DIR]   (env: GAMES=200 N=200 N_HARD=30 N_LATE=N SOLVER0=1 SIMS=200 NET= NET_OPTS= OUT=RUN/eval REFDATA=../shared/refdata/connect4)
set -euo pipefail
run=${1:-runs/connect4}
games=${GAMES:-200}
n=${N:-200}
nhard=${N_HARD:-30}
nlate=${N_LATE:-$n}
refdata=${REFDATA:-../shared/refdata/connect4}
solver0=${SOLVER0:-1}
opts=${NET_OPTS:-}
sims=${SIMS:-200}
best=${NET:-"$run/checkpoints/$(tr -d '[:space:]' < "$run/checkpoints/best")"}
out=${OUT:-$run/eval}
mkdir -p "$out" "$run/bench"
arena="$out/arena"
go build -o "$arena" ./cmd/arena

echo "best network: $best"
"$arena" match -game connect4 -players "net:path=$best,sims=$sims$opts mcts:rollouts=1000" -games "$games" -seed 1 \
  -out "$out/match.jsonl" -quiet | tee "$out/match.txt"

for set in Test_L1_R1 Test_L1_R2 Test_L1_R3 Test_L2_R1 Test_L2_R2 Test_L3_R1; do
  k=$n
  [ "$set" = Test_L1_R3 ] && k=$nhard
  case $set in Test_L2_* | Test_L3_*) k=$nlate ;; esac
  players=("net:path=$best,sims=$sims$opts" "alphabeta:depth=5")
  [ "$solver0" = 1 ] && players+=("net:path=$best,sims=$sims,solver=0$opts")
  for player in "${players[@]}"; do
    name=${player%%:*}
    case $player in *solver=0*) name=net-solver0 ;; esac
    "$arena" bench -game connect4 -player "$player" -positions "$refdata/$set" -n "$k" \
      -verdicts "$run/bench/$set-$k.json" -out "$out/bench-$set-$name.jsonl" -quiet
  done
done | tee "$out/bench.txt"

# The held-out set (data/connect4/heldout: 2,000 positions from varied play that no setting was chosen
# on, labelled by the solver; data/connect4/README.md). Tune on Pons' sets, report on both.
players=("net:path=$best,sims=$sims$opts" "alphabeta:depth=5")
[ "$solver0" = 1 ] && players+=("net:path=$best,sims=$sims,solver=0$opts")
for player in "${players[@]}"; do
  name=${player%%:*}
  case $player in *solver=0*) name=net-solver0 ;; esac
  "$arena" bench -game connect4 -player "$player" -positions data/connect4/heldout \
    -verdicts "$run/bench/heldout.json" -out "$out/bench-heldout-$name.jsonl" -quiet
done | tee "$out/bench-heldout.txt"

# The network's mistakes by the best outcome of each position (a move that only draws is the hard case; docs:
# "Where the mistakes are"); scripts/mistakes compares several runs the same way.
go run ./scripts/mistakes -player net -sets Test_L1_R2,Test_L1_R3,Test_L2_R2 "$out" | tee "$out/mistakes.txt"
