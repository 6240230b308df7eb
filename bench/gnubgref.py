# The gnubg referee (bench/gnubgref.go runs it as: gnubg -t -q -p THIS).
#
# Reads turns from the file named by TABULA_GNUBG_IN, one a line:
#   KEY POSITION_ID D1 D2 AFTER_ID
# (the position with the mover on roll, the dice, and the position the
# mover's turn reached, in the mover's view). For each it writes to the file
# named by TABULA_GNUBG_OUT one tab-separated line:
#   KEY MOVES OURS_FOUND BEST_EQ OUR_EQ BEST_WIN OUR_WIN BEST_MOVE PLIES
# MOVES is the number of legal moves (0: none, the turn is a pass), OURS_FOUND
# 1 when the position reached is one of gnubg's legal moves, equities are
# cubeless money equities of the mover after the move (what gnubg's hint
# shows), WIN its probability of winning.
#
# TABULA_GNUBG_PLIES (default 0) is the depth. At 0 every legal move is
# evaluated by gnubg's net (gnubg.hint). Deeper, as gnubg's analysis does:
# the moves within 0.16 of the best at 0 plies (at most 8) and the move
# played are evaluated again at the full depth, with pruning, and the best of
# them is gnubg's choice.
import os

import gnubg

gnubg.command("set player 0 human")
gnubg.command("set player 1 human")
gnubg.command("new game")
gnubg.command("set evaluation chequerplay evaluation plies 0")
gnubg.command("set evaluation chequerplay evaluation cubeful off")
gnubg.command("set evaluation chequerplay evaluation prune off")

PLIES = int(os.environ.get("TABULA_GNUBG_PLIES", "0"))
CUBE = gnubg.cubeinfo(1, -1, 0, 0)  # money, centred cube: cubeless equities
DEEP = gnubg.evalcontext(0, PLIES, 1, 1, 0.0)  # cubeless, deterministic, pruning


def after(board, segments):
    """The board after the mover plays segments, in the mover's view."""
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


def deep(b):
    """Equity and winning chance of the mover who left board b (mover's view)."""
    ev = gnubg.evaluate((b[1], b[0]), CUBE, DEEP)  # the opponent is on roll
    return -ev[5], 1 - ev[0]


out = []
with open(os.environ["TABULA_GNUBG_IN"]) as f:
    for line in f:
        key, pid, d1, d2, ours = line.split()
        gnubg.command("set board " + pid)
        gnubg.command("set dice %s %s" % (d1, d2))
        board = gnubg.positionfromid(pid)
        try:
            hint = gnubg.hint(100000)["hint"]
        except Exception:
            hint = []
        if not hint:
            found = 1 if ours == pid else 0
            out.append("\t".join([key, "0", str(found), "0", "0", "0", "0", "-", str(PLIES)]))
            continue
        moves = []  # [equity, win, move, board after, position ID after]
        for m in hint:
            b = after(board, gnubg.parsemove(m["move"]))
            moves.append([m["equity"], m["details"]["probs"][0], m["move"], b, gnubg.positionid(b)])
        mine = [m for m in moves if m[4] == ours]
        if PLIES > 0:
            best0 = max(m[0] for m in moves)
            cands = sorted(moves, key=lambda m: -m[0])
            cands = [m for m in cands if m[0] >= best0 - 0.16][:8]
            for m in mine:
                if m not in cands:
                    cands.append(m)
            for m in cands:
                m[0], m[1] = deep(m[3])
            moves = cands
        best = max(moves, key=lambda m: m[0])
        if not mine:
            out.append("\t".join([key, str(len(hint)), "0", repr(best[0]), "0", repr(best[1]), "0", best[2], str(PLIES)]))
            continue
        m = mine[0]
        out.append("\t".join([key, str(len(hint)), "1", repr(best[0]), repr(m[0]), repr(best[1]), repr(m[1]), best[2], str(PLIES)]))
with open(os.environ["TABULA_GNUBG_OUT"], "w") as f:
    f.write("\n".join(out) + "\n")
