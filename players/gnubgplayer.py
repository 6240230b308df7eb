# The gnubg player's engine (players/gnubgplayer.go runs it as:
# gnubg -t -q -p THIS).
#
# Reads requests from stdin, one a line:
#   POSITION_ID D1 D2 PLIES
# (the position with the mover on roll, the dice, gnubg's evaluation depth)
# and answers each with one line on stdout:
#   tabula-gnubg move AFTER_ID MOVE   gnubg's best move: the position it
#                                     reaches (the mover's view) and the
#                                     move in gnubg's notation
#   tabula-gnubg pass                 no legal move
#   tabula-gnubg error MESSAGE        a request it could not read
# After its set-up it writes "tabula-gnubg ready". Other lines on stdout
# are gnubg's own and are to be skipped. Play is cubeless money play:
# gnubg.findbestmove with a cubeless, deterministic evaluation context.
import sys

import gnubg

PREFIX = "tabula-gnubg "

gnubg.command("set player 0 human")
gnubg.command("set player 1 human")
gnubg.command("new game")
CUBE = gnubg.cubeinfo(1, -1, 0, 0)  # money, centred cube


def after(board, move):
    """The board after the mover plays move (from, to pairs), mover's view."""
    opp = list(board[0])
    me = list(board[1])
    for i in range(0, len(move), 2):
        f, t = move[i], move[i + 1]
        me[f - 1] -= 1  # 25 is the bar: index 24
        if t <= 0:
            continue
        if opp[24 - t] == 1:
            opp[24 - t] = 0
            opp[24] += 1
        me[t - 1] += 1
    return (tuple(opp), tuple(me))


def answer(line):
    f = line.split()
    if len(f) != 4:
        return "error want POSITION_ID D1 D2 PLIES, got %r" % line
    pid = f[0]
    try:
        d1, d2, plies = int(f[1]), int(f[2]), int(f[3])
    except ValueError:
        return "error dice and plies must be numbers: %r" % line
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6) or not (0 <= plies <= 3):
        return "error dice or plies out of range: %r" % line
    board = gnubg.positionfromid(pid)
    if gnubg.positionid(board) != pid:
        return "error not a position ID: %r" % pid
    ec = gnubg.evalcontext(0, plies, 0, 1, 0.0)  # cubeless, deterministic, no noise
    move = gnubg.findbestmove(board, CUBE, ec, (d1, d2))
    if not move:
        return "pass"
    b = after(board, move)
    return "move %s %s" % (gnubg.positionid(b), gnubg.movetupletostring(move, board))


print(PREFIX + "ready")
sys.stdout.flush()
while True:
    line = sys.stdin.readline()
    if not line:
        break
    line = line.strip()
    if not line:
        continue
    try:
        out = answer(line)
    except Exception as e:
        out = "error %s" % (str(e).replace("\n", " ") or type(e).__name__)
    print(PREFIX + out)
    sys.stdout.flush()
