# Lists gnubg's legal moves for positions read from the file named by the
# environment variable TABULA_GNUBG_IN: one "positionID d1 d2" a line. For
# each it prints "positionID d1 d2" and then a tab-separated list of
# "move|positionID after the move" (the board after the move from the view
# of the same player on roll), or nothing when no move is legal.
# Run by gnubg_test.go as: gnubg -t -q -p gnubg_moves.py
import os
import sys

import gnubg

gnubg.command("set player 0 human")
gnubg.command("set player 1 human")
gnubg.command("new game")
# 0-ply hints: the moves are what matters here, not their equities.
gnubg.command("set evaluation chequerplay evaluation plies 0")
gnubg.command("set evaluation chequerplay evaluation cubeful off")


def apply(board, segments):
    opp = list(board[0])
    me = list(board[1])
    for f, t in segments:
        me[f - 1] -= 1  # 25 is the bar: index 24
        if t == 0:
            continue
        if opp[24 - t] == 1:
            opp[24 - t] = 0
            opp[24] += 1
        me[t - 1] += 1
    return (tuple(opp), tuple(me))


out = []
with open(os.environ["TABULA_GNUBG_IN"]) as f:
    for line in f:
        pid, d1, d2 = line.split()
        gnubg.command("set board " + pid)
        gnubg.command("set dice %s %s" % (d1, d2))
        board = gnubg.positionfromid(pid)
        row = [line.strip()]
        try:
            hint = gnubg.hint(100000)["hint"]
        except Exception:
            hint = []
        for m in hint:
            after = apply(board, gnubg.parsemove(m["move"]))
            row.append(m["move"] + "|" + gnubg.positionid(after))
        out.append("\t".join(row))
with open(os.environ["TABULA_GNUBG_OUT"], "w") as f:
    f.write("\n".join(out) + "\n")
